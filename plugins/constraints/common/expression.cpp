// SPDX-License-Identifier: MIT
#include "expression.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include <arbo/sdk/params.hpp>

namespace arbo::plugins {

namespace {

constexpr int kMaxNesting = 200;

enum class Tok {
  Number,
  Name,
  Plus,
  Minus,
  Star,
  Slash,
  Caret,
  LParen,
  RParen,
  LessEqual,
  GreaterEqual,
  Equal,
  Semicolon,
  End
};

struct Token {
  Tok kind = Tok::End;
  std::size_t begin = 0;
  std::size_t end = 0;
  double number = 0.0;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

// The whole UTF-8 sequence starting at `i`, so that "unexpected character" shows what the user
// typed (a pasted '≤' is the classic case).
std::string_view utf8_char_at(std::string_view text, std::size_t i) {
  std::size_t n = 1;
  while (i + n < text.size() && (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80) ++n;
  return text.substr(i, n);
}

std::vector<Token> lex(std::string_view text) {
  std::vector<Token> out;
  std::size_t i = 0;
  const auto at = [&](std::size_t k) { return k < text.size() ? text[k] : '\0'; };
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    Token t;
    t.begin = i;
    if (is_digit(c) || (c == '.' && is_digit(at(i + 1)))) {
      std::size_t j = i;
      while (is_digit(at(j))) ++j;
      if (at(j) == '.') {
        ++j;
        while (is_digit(at(j))) ++j;
      }
      if ((at(j) == 'e' || at(j) == 'E') &&
          (is_digit(at(j + 1)) ||
           ((at(j + 1) == '+' || at(j + 1) == '-') && is_digit(at(j + 2))))) {
        j += 2;
        while (is_digit(at(j))) ++j;
      }
      if (is_name_char(at(j)) || at(j) == '.') {
        std::size_t k = j;
        while (is_name_char(at(k)) || at(k) == '.') ++k;
        const std::string_view number = text.substr(i, j - i);
        if (at(j) == 'e' || at(j) == 'E') {
          throw ExpressionError(j, fmt::format("malformed number '{}': expected digits after "
                                               "the exponent '{}'",
                                               text.substr(i, k - i), at(j)));
        }
        if (at(j) == '.') {
          throw ExpressionError(
              j, fmt::format("malformed number '{}': a second '.'", text.substr(i, k - i)));
        }
        throw ExpressionError(
            j, fmt::format("expected an operator after the number '{}' but "
                           "found '{}' (write {}*{})",
                           number, text.substr(j, k - j), number, text.substr(j, k - j)));
      }
      const auto r = std::from_chars(text.data() + i, text.data() + j, t.number);
      if (r.ec != std::errc() || !std::isfinite(t.number)) {
        throw ExpressionError(i, fmt::format("number '{}' is out of range", text.substr(i, j - i)));
      }
      t.kind = Tok::Number;
      i = j;
    } else if (is_name_start(c)) {
      std::size_t j = i;
      while (is_name_char(at(j))) ++j;
      t.kind = Tok::Name;
      i = j;
    } else {
      const char d = at(i + 1);
      std::size_t len = 1;
      switch (c) {
        case '+': t.kind = Tok::Plus; break;
        case '-': t.kind = Tok::Minus; break;
        case '*': t.kind = Tok::Star; break;
        case '/': t.kind = Tok::Slash; break;
        case '^': t.kind = Tok::Caret; break;
        case '(': t.kind = Tok::LParen; break;
        case ')': t.kind = Tok::RParen; break;
        case ';': t.kind = Tok::Semicolon; break;
        case '<':
        case '>':
          if (d != '=') {
            throw ExpressionError(i, fmt::format("strict comparison '{}' is not supported: use "
                                                 "'{}='",
                                                 c, c));
          }
          t.kind = c == '<' ? Tok::LessEqual : Tok::GreaterEqual;
          len = 2;
          break;
        case '=':
          if (d == '<' || d == '>') {
            throw ExpressionError(i, fmt::format("unknown comparison '={}': use '{}='", d, d));
          }
          t.kind = Tok::Equal;
          len = d == '=' ? 2 : 1;
          break;
        case '!':
          if (d == '=') {
            throw ExpressionError(i, "'!=' is not supported: a constraint uses one of <=, >=, ==");
          }
          [[fallthrough]];
        default:
          throw ExpressionError(i, fmt::format("unexpected character '{}'", utf8_char_at(text, i)));
      }
      i += len;
    }
    t.end = i;
    out.push_back(t);
  }
  Token end;
  end.kind = Tok::End;
  end.begin = end.end = text.size();
  out.push_back(end);
  return out;
}

bool is_comparison(Tok k) {
  return k == Tok::LessEqual || k == Tok::GreaterEqual || k == Tok::Equal;
}

}  // namespace

namespace {

// Start of the line holding byte `offset`, and the 1-based character column within it.
struct Position {
  std::size_t line_begin = 0;
  std::size_t line = 1;
  std::size_t column = 1;
};

Position position_of(std::string_view text, std::size_t offset) {
  Position p;
  offset = std::min(offset, text.size());
  p.line_begin = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;  // npos + 1 == 0
  p.line = 1 + static_cast<std::size_t>(std::count(
                   text.begin(), text.begin() + static_cast<std::ptrdiff_t>(p.line_begin), '\n'));
  // Characters, not bytes, so the caret stays under a multi-byte character.
  for (std::size_t k = p.line_begin; k < offset; ++k) {
    if ((static_cast<unsigned char>(text[k]) & 0xC0) != 0x80) ++p.column;
  }
  return p;
}

// "column 7", or "line 2, column 7" for a multi-line text.
std::string position_label(std::string_view text, std::size_t offset) {
  const Position p = position_of(text, offset);
  if (text.find('\n') == std::string_view::npos) return fmt::format("column {}", p.column);
  return fmt::format("line {}, column {}", p.line, p.column);
}

}  // namespace

std::string format_expression_error(std::string_view text, const ExpressionError& error) {
  if (error.column() == std::string_view::npos) return error.what();
  const Position p = position_of(text, error.column());
  std::size_t line_end = text.find('\n', p.line_begin);
  if (line_end == std::string_view::npos) line_end = text.size();
  std::string line(text.substr(p.line_begin, line_end - p.line_begin));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::replace(line.begin(), line.end(), '\t', ' ');
  return fmt::format("{} at {}:\n  {}\n  {}^", error.what(), position_label(text, error.column()),
                     line, std::string(p.column - 1, ' '));
}

// Recursive descent over the token list; builds one arena per constraint and expands it.
class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, const sdk::Space& space, const ParseOptions& options)
      : text_(text), space_(space), options_(options), tokens_(lex(text)) {}

  std::vector<ParsedConstraint> parse() {
    std::vector<ParsedConstraint> out;
    while (true) {
      if (options_.allow_list) {
        while (peek().kind == Tok::Semicolon) ++pos_;
      }
      if (peek().kind == Tok::End) break;
      out.push_back(parse_constraint());
      if (peek().kind == Tok::Semicolon && options_.allow_list) continue;
      if (peek().kind != Tok::End) {
        throw ExpressionError(
            peek().begin,
            fmt::format("expected the end of the expression but found {}", describe(peek())));
      }
    }
    if (out.empty()) {
      throw ExpressionError(
          std::string_view::npos,
          options_.allow_list
              ? "no rows: expected rows such as \"x1 + 2*x2 <= 3; x1 - x2 >= -1\""
              : "empty expression: expected a constraint such as \"x0^2 + x1*x2 <= 25\"");
    }
    return out;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  std::string_view token_text(const Token& t) const {
    return text_.substr(t.begin, t.end - t.begin);
  }
  std::string describe(const Token& t) const {
    if (t.kind == Tok::End) return "the end of the expression";
    return fmt::format("'{}'", token_text(t));
  }

  ParsedConstraint parse_constraint() {
    ParsedConstraint pc;
    nodes_ = &pc.nodes_;
    pc.begin_ = peek().begin;
    pc.lhs_ = parse_sum();
    const Token cmp = peek();
    if (!is_comparison(cmp.kind)) {
      if (cmp.kind == Tok::RParen) throw ExpressionError(cmp.begin, "unmatched ')'");
      if (cmp.kind == Tok::End || cmp.kind == Tok::Semicolon) {
        throw ExpressionError(
            cmp.begin,
            fmt::format("expected a comparison (<=, >= or ==) but found {}", describe(cmp)));
      }
      throw ExpressionError(cmp.begin,
                            fmt::format("expected an operator or a comparison (<=, >= or ==) but "
                                        "found {}",
                                        describe(cmp)));
    }
    ++pos_;
    pc.rhs_ = parse_sum();
    const Token& after = peek();
    if (is_comparison(after.kind)) {
      throw ExpressionError(
          after.begin,
          fmt::format("a constraint has one comparison but found a second {}", describe(after)));
    }
    if (after.kind == Tok::RParen) throw ExpressionError(after.begin, "unmatched ')'");
    if (after.kind != Tok::End && !(after.kind == Tok::Semicolon && options_.allow_list)) {
      throw ExpressionError(after.begin,
                            fmt::format("expected an operator{} but found {}",
                                        options_.allow_list ? ", ';' or the end of the rows"
                                                            : " or the end of the expression",
                                        describe(after)));
    }
    pc.end_ = tokens_[pos_ - 1].end;
    pc.flip_ = cmp.kind == Tok::GreaterEqual;
    pc.equality_ = cmp.kind == Tok::Equal;
    const Polynomial l = expand(pc.lhs_);
    const Polynomial r = expand(pc.rhs_);
    pc.polynomial_ = pc.flip_ ? add(r, l, -1.0) : add(l, r, -1.0);
    if (pc.polynomial_.is_constant()) {
      throw ExpressionError(cmp.begin, "the constraint does not depend on any parameter");
    }
    for (const auto& [m, c] : pc.polynomial_.terms) {
      if (!std::isfinite(c)) {
        throw ExpressionError(cmp.begin, "a coefficient of the expanded constraint is not finite");
      }
    }
    nodes_ = nullptr;
    return pc;
  }

  int add_node(ExprNode n) {
    nodes_->push_back(n);
    return static_cast<int>(nodes_->size() - 1);
  }
  int binary(ExprNode::Op op, int a, int b, std::size_t column) {
    ExprNode n;
    n.op = op;
    n.a = a;
    n.b = b;
    n.column = column;
    return add_node(n);
  }

  struct Nesting {
    explicit Nesting(ExpressionParser& p, std::size_t column) : p_(p) {
      if (++p_.depth_ > kMaxNesting) {
        throw ExpressionError(column, fmt::format("the expression is nested more than {} levels "
                                                  "deep",
                                                  kMaxNesting));
      }
    }
    ~Nesting() { --p_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    ExpressionParser& p_;
  };

  /// Appends `node` to the chain whose top is `left` (`first` < 0: a new chain).
  void link(int& first, int left, int node) {
    if (first < 0) {
      first = node;
    } else {
      (*nodes_)[static_cast<std::size_t>(left)].up = node;
    }
    (*nodes_)[static_cast<std::size_t>(node)].first = first;
  }

  int parse_sum() {
    int left = parse_product();
    int first = -1;
    while (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
      const Token op = tokens_[pos_++];
      const int right = parse_product();
      const int node = binary(op.kind == Tok::Plus ? ExprNode::Op::Add : ExprNode::Op::Sub, left,
                              right, op.begin);
      link(first, left, node);
      left = node;
    }
    return left;
  }

  int parse_product() {
    int left = parse_unary();
    int first = -1;
    while (peek().kind == Tok::Star || peek().kind == Tok::Slash) {
      const Token op = tokens_[pos_++];
      const int right = parse_unary();
      const int node = binary(op.kind == Tok::Star ? ExprNode::Op::Mul : ExprNode::Op::Div, left,
                              right, op.begin);
      link(first, left, node);
      left = node;
    }
    return left;
  }

  int parse_unary() {
    const Token t = peek();
    if (t.kind != Tok::Plus && t.kind != Tok::Minus) return parse_power();
    const Nesting guard(*this, t.begin);
    ++pos_;
    const int operand = parse_unary();
    if (t.kind == Tok::Plus) return operand;
    ExprNode n;
    n.op = ExprNode::Op::Neg;
    n.a = operand;
    n.column = t.begin;
    return add_node(n);
  }

  int parse_power() {
    const int base = parse_atom();
    if (peek().kind != Tok::Caret) return base;
    const Token op = tokens_[pos_++];
    // Right-associative: `x^x^x^...` nests like parentheses, and counts as such.
    const Nesting guard(*this, op.begin);
    const int exponent = parse_unary();
    return binary(ExprNode::Op::Pow, base, exponent, op.begin);
  }

  int parse_atom() {
    const Token t = peek();
    ExprNode n;
    n.column = t.begin;
    switch (t.kind) {
      case Tok::Number:
        ++pos_;
        n.op = ExprNode::Op::Number;
        n.number = t.number;
        return add_node(n);
      case Tok::Name: {
        ++pos_;
        const std::string_view name = token_text(t);
        const auto index = space_.index_of(name);
        if (!index) {
          std::vector<std::string> names;
          for (const auto& p : space_.parameters()) names.push_back(p.name);
          const std::string hint = sdk::nearest_name(name, names);
          throw ExpressionError(t.begin, hint.empty()
                                             ? fmt::format("unknown parameter '{}'", name)
                                             : fmt::format("unknown parameter '{}' (did you "
                                                           "mean '{}'?)",
                                                           name, hint));
        }
        const sdk::Parameter& p = space_[*index];
        if (p.type == sdk::ParamType::Categorical) {
          throw ExpressionError(t.begin, fmt::format("parameter '{}' is categorical: expressions "
                                                     "can use real, integer and binary "
                                                     "parameters only",
                                                     name));
        }
        n.op = p.log_scale ? ExprNode::Op::LogCoordinate : ExprNode::Op::Coordinate;
        n.coordinate = static_cast<int>(*index);
        return add_node(n);
      }
      case Tok::LParen: {
        const Nesting guard(*this, t.begin);
        ++pos_;
        const int inner = parse_sum();
        if (peek().kind != Tok::RParen) {
          throw ExpressionError(peek().begin,
                                fmt::format("expected ')' to close the '(' at {} but found {}",
                                            position_label(text_, t.begin), describe(peek())));
        }
        ++pos_;
        return inner;
      }
      default:
        throw ExpressionError(
            t.begin,
            fmt::format("expected a number, a parameter name or '(' but found {}", describe(t)));
    }
  }

  void expanded(Expansion result, std::size_t column) const {
    if (result == Expansion::TooManyTerms) {
      throw ExpressionError(
          column, fmt::format("the expansion has more than {} terms", kMaxPolynomialTerms));
    }
    if (result == Expansion::TooMuchWork) {
      throw ExpressionError(column, fmt::format("the expansion needs more than {} products of "
                                                "terms",
                                                kMaxPolynomialProducts));
    }
  }

  void check_degree(int degree, const ExprNode& n, const char* linear_reason) const {
    if (degree <= options_.max_degree) return;
    if (options_.max_degree == 1) {
      throw ExpressionError(n.column, fmt::format("non-linear term: {} (a linear row allows only "
                                                  "constant multiples of parameters)",
                                                  linear_reason));
    }
    throw ExpressionError(
        n.column, fmt::format("degree {} is above the maximum of {}", degree, options_.max_degree));
  }

  // Expands a subtree into a polynomial, checking the semantic rules at the node where they
  // fail so the caret points at the offending operator. A chain of sums or products is expanded
  // in a loop (see ExprNode::first), in the order of the recursion it replaces.
  Polynomial expand(int index) {
    ExprNode& n = (*nodes_)[static_cast<std::size_t>(index)];
    using Op = ExprNode::Op;
    switch (n.op) {
      case Op::Number: return Polynomial::constant(n.number);
      case Op::Coordinate:
      case Op::LogCoordinate: return Polynomial::variable(n.coordinate);
      case Op::Neg: return scale(expand(n.a), -1.0);
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::Div: {
        int k = n.first;
        Polynomial acc = expand((*nodes_)[static_cast<std::size_t>(k)].a);
        while (true) {
          const ExprNode& c = (*nodes_)[static_cast<std::size_t>(k)];
          apply(c, acc, expand(c.b));
          if (k == index) return acc;
          k = c.up;
        }
      }
      case Op::Pow: {
        const Polynomial base = expand(n.a);
        const Polynomial e = expand(n.b);
        if (!e.is_constant()) {
          throw ExpressionError(n.column,
                                "non-constant exponent (expected a non-negative "
                                "integer)");
        }
        const double v = e.constant_term();
        if (v != std::floor(v)) {
          throw ExpressionError(
              n.column,
              fmt::format("non-integer exponent {} (expected a non-negative integer)", v));
        }
        if (v < 0) {
          throw ExpressionError(
              n.column, fmt::format("negative exponent {} (expected a non-negative integer)", v));
        }
        if (v > kMaxExponent) {
          throw ExpressionError(
              n.column, fmt::format("exponent {} is above the maximum of {}", v, kMaxExponent));
        }
        n.exponent = static_cast<int>(v);
        if (n.exponent >= 2) check_degree(base.degree() * n.exponent, n, "power of a non-constant");
        Polynomial out;
        expanded(power(base, n.exponent, out, &budget_), n.column);
        return out;
      }
    }
    return {};
  }

  // acc = acc <c.op> b, with the checks of that operator.
  void apply(const ExprNode& c, Polynomial& acc, const Polynomial& b) {
    using Op = ExprNode::Op;
    switch (c.op) {
      case Op::Add: add_to(acc, b); return;
      case Op::Sub: add_to(acc, b, -1.0); return;
      case Op::Mul: {
        if (!acc.terms.empty() && !b.terms.empty()) {
          check_degree(acc.degree() + b.degree(), c, "product of two non-constant factors");
        }
        Polynomial out;
        expanded(multiply(acc, b, out, &budget_), c.column);
        acc = std::move(out);
        return;
      }
      case Op::Div:
        if (!b.is_constant()) {
          throw ExpressionError(c.column,
                                "division by a non-constant (divisors must be "
                                "constants)");
        }
        if (b.constant_term() == 0.0) throw ExpressionError(c.column, "division by zero");
        acc = scale(acc, 1.0 / b.constant_term());
        return;
      default: return;
    }
  }

  std::string_view text_;
  const sdk::Space& space_;
  ParseOptions options_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::size_t budget_ = kMaxPolynomialProducts;  ///< term products left for the whole text
  std::vector<ExprNode>* nodes_ = nullptr;
};

double ParsedConstraint::eval(int index, const Eigen::VectorXd& x, bool magnitude) const {
  const ExprNode& n = nodes_[static_cast<std::size_t>(index)];
  using Op = ExprNode::Op;
  // With `magnitude`, every operand is taken by its absolute value and differences become sums:
  // the size of the numbers the plain evaluation adds up, which bounds its rounding error.
  switch (n.op) {
    case Op::Number: return magnitude ? std::abs(n.number) : n.number;
    case Op::Coordinate: return magnitude ? std::abs(x[n.coordinate]) : x[n.coordinate];
    case Op::LogCoordinate: return std::exp(x[n.coordinate]);
    case Op::Neg: return magnitude ? eval(n.a, x, true) : -eval(n.a, x, false);
    case Op::Pow: return std::pow(eval(n.a, x, magnitude), n.exponent);
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
    case Op::Div: break;
  }
  // A chain of sums or products, in a loop from its first operation up (see ExprNode::first):
  // the same operations in the same order as the recursion over the left-deep tree.
  int k = n.first;
  double acc = eval(nodes_[static_cast<std::size_t>(k)].a, x, magnitude);
  while (true) {
    const ExprNode& c = nodes_[static_cast<std::size_t>(k)];
    switch (c.op) {
      case Op::Add: acc = acc + eval(c.b, x, magnitude); break;
      case Op::Sub: acc = magnitude ? acc + eval(c.b, x, true) : acc - eval(c.b, x, false); break;
      case Op::Mul: acc = acc * eval(c.b, x, magnitude); break;
      case Op::Div:
        acc = acc / (magnitude ? std::abs(eval(c.b, x, false)) : eval(c.b, x, false));
        break;
      default: break;
    }
    if (k == index) return acc;
    k = c.up;
  }
}

double ParsedConstraint::value(const Eigen::VectorXd& x) const {
  const double l = eval(lhs_, x, false);
  const double r = eval(rhs_, x, false);
  return flip_ ? r - l : l - r;
}

double ParsedConstraint::magnitude(const Eigen::VectorXd& x) const {
  return eval(lhs_, x, true) + eval(rhs_, x, true);
}

std::string ParsedConstraint::normalized(const sdk::Space& space) const {
  return fmt::format("{} {} 0", to_string(polynomial_, space), equality_ ? "==" : "<=");
}

std::vector<ParsedConstraint> parse_constraints(std::string_view text, const sdk::Space& space,
                                                const ParseOptions& options) {
  return ExpressionParser(text, space, options).parse();
}

}  // namespace arbo::plugins
