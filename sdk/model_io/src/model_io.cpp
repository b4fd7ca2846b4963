// SPDX-License-Identifier: MIT
#include "arbo/sdk/model_io.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "arbo/sdk/error.hpp"

namespace arbo::sdk {
namespace {

constexpr std::size_t kMaxNameLength = 255;  // CPLEX's limit
constexpr std::size_t kLineWidth = 100;      // CPLEX reads lines of up to 510 characters
constexpr double kInfiniteBound = 1e20;      // CPLEX reads bounds this large as infinite
constexpr double kPsdTolerance = 1e-9;       // on the unit-diagonal scaled matrix
constexpr std::string_view kObjConstantName = "obj_constant";
// The comment that carries `Objective::offset`: the LP format has no such notion (GLPK and
// CPLEX skip it as a comment), and a comment leaves the objective's constant exactly as written.
constexpr std::string_view kOffsetComment = "\\ arbo objective offset: ";
constexpr std::string_view kNoRowsName = "no_constraints";
constexpr std::string_view kNameSpecials = "!\"#$%&()/,.;?@_'`{}|~";

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         (c != '\0' && kNameSpecials.find(c) != std::string_view::npos);
}

// A leading digit or '.' would read as a number, a leading '/' as the objective's "/ 2".
bool is_name_start(char c) {
  return is_name_char(c) && std::isdigit(static_cast<unsigned char>(c)) == 0 && c != '.' &&
         c != '/';
}

std::string lowercase(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

bool is_inf_word(std::string_view s) {
  const std::string l = lowercase(s);
  return l == "inf" || l == "infinity";
}

// Words a reader could take for a section keyword or a bound keyword, plus our own reserved
// variable name; variables and rows with these names are renamed on writing.
bool is_reserved(std::string_view name) {
  static const std::unordered_set<std::string> words{
      "minimize", "minimise", "minimum",  "min",         "maximize", "maximise", "maximum",
      "max",      "subject",  "such",     "st",          "s.t.",     "st.",      "bounds",
      "bound",    "general",  "generals", "gen",         "binary",   "binaries", "bin",
      "end",      "free",     "inf",      "infinity",    "semi",     "semis",    "sos",
      "lazy",     "user",     "pwlobj",   "obj_constant"};
  if (words.count(lowercase(name)) != 0) return true;
  // CPLEX reserves "e" followed by digits for exponents.
  if ((name[0] == 'e' || name[0] == 'E') && std::all_of(name.begin() + 1, name.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.';
      })) {
    return true;
  }
  return false;
}

std::string sanitize(std::string_view name) {
  std::string s;
  s.reserve(name.size() + 1);
  for (char c : name) s += is_name_char(c) ? c : '_';
  if (!is_name_start(s[0]) || is_reserved(s)) s.insert(s.begin(), '_');
  if (s.size() > kMaxNameLength) s.resize(kMaxNameLength);
  return s;
}

// Valid, unique names in the given order. `generated(k)` names an entry whose name is empty.
template <class Generated>
std::vector<std::string> unique_names(const std::vector<std::string_view>& names,
                                      Generated generated) {
  std::vector<std::string> out;
  out.reserve(names.size());
  std::unordered_set<std::string> used;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::string base = sanitize(names[k].empty() ? std::string_view(generated(k)) : names[k]);
    std::string name = base;
    for (int suffix = 2; used.count(name) != 0; ++suffix) {
      const std::string tail = fmt::format("_{}", suffix);
      name = base.substr(0, kMaxNameLength - tail.size()) + tail;
    }
    used.insert(name);
    out.push_back(std::move(name));
  }
  return out;
}

// Sums repeated variables (keeping the first occurrence's position) and drops zeros, so that
// GLPK, which rejects a variable used twice in one row, reads every file we write.
std::vector<LinearTerm> merge_linear(const std::vector<LinearTerm>& terms) {
  std::vector<LinearTerm> out;
  std::unordered_map<int, std::size_t> at;
  for (const auto& t : terms) {
    auto [it, fresh] = at.emplace(t.var, out.size());
    if (fresh) {
      out.push_back(t);
    } else {
      out[it->second].coef += t.coef;
    }
  }
  std::erase_if(out, [](const LinearTerm& t) { return t.coef == 0.0; });
  return out;
}

std::vector<QuadTerm> merge_quadratic(const std::vector<QuadTerm>& terms) {
  std::vector<QuadTerm> out;
  std::map<std::pair<int, int>, std::size_t> at;
  for (const auto& t : terms) {
    const auto key = std::minmax(t.var1, t.var2);
    auto [it, fresh] = at.emplace(key, out.size());
    if (fresh) {
      out.push_back(t);
    } else {
      out[it->second].coef += t.coef;
    }
  }
  std::erase_if(out, [](const QuadTerm& t) { return t.coef == 0.0; });
  return out;
}

// Coupled blocks up to this many variables get the dense eigenvalue test (O(k^3): 0.3 s at
// 1,000); larger ones a sparse LDL^T factorization, linear in the entries for the chains and
// bands that quadratic rows of that size have in practice.
constexpr Eigen::Index kDensePsdLimit = 1000;

// True when the symmetric matrix `h` (unit or zero diagonal, see is_psd) is positive
// semidefinite up to kPsdTolerance.
bool block_is_psd(const Eigen::SparseMatrix<double>& h) {
  const auto tolerance = [](const Eigen::VectorXd& values) {
    return -kPsdTolerance * std::max(1.0, values.cwiseAbs().maxCoeff());
  };
  if (h.rows() <= kDensePsdLimit) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(Eigen::MatrixXd(h),
                                                             Eigen::EigenvaluesOnly);
    if (eig.info() != Eigen::Success) return false;
    return eig.eigenvalues().minCoeff() >= tolerance(eig.eigenvalues());
  }
  // Without pivoting a semidefinite block can meet an exactly zero pivot; the factorization
  // then fails and the row is taken as nonconvex, which costs the solver speed, never
  // correctness (a convex row is only ever an optimization).
  const Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(h);
  if (ldlt.info() != Eigen::Success) return false;
  return ldlt.vectorD().minCoeff() >= tolerance(ldlt.vectorD());
}

// True when sign * q(x) is convex, i.e. the symmetric matrix H of sign * q is positive
// semidefinite. The test runs on D^-1 H D^-1 with D = sqrt|diag H| (a congruence, so it keeps
// the inertia): rescaling a variable then changes nothing, and the tolerance on the smallest
// eigenvalue is relative to a matrix with a unit diagonal rather than to the largest
// coefficient, which would hide a small negative square next to a huge positive one.
// Before any factorization, O(terms) checks settle most rows: a negative diagonal entry is
// not PSD, and a diagonally dominant matrix is. The rest is tested per block of variables coupled
// by cross terms (the matrix is block diagonal in them), so a row of many separate squares or small
// groups stays linear in its size.
bool is_psd(const std::vector<QuadTerm>& quad, double sign) {
  std::unordered_map<int, Eigen::Index> local;
  for (const auto& t : quad) {
    local.emplace(t.var1, static_cast<Eigen::Index>(local.size()));
    local.emplace(t.var2, static_cast<Eigen::Index>(local.size()));
  }
  if (local.empty()) return true;
  const auto k = static_cast<Eigen::Index>(local.size());
  Eigen::VectorXd diag = Eigen::VectorXd::Zero(k);
  std::vector<Eigen::Triplet<double>> cross;  // both halves of each cross term
  for (const auto& t : quad) {
    const Eigen::Index a = local.at(t.var1);
    const Eigen::Index b = local.at(t.var2);
    if (a == b) {
      diag(a) += sign * t.coef;
    } else {
      cross.emplace_back(a, b, 0.5 * sign * t.coef);
      cross.emplace_back(b, a, 0.5 * sign * t.coef);
    }
  }
  Eigen::SparseMatrix<double> h(k, k);
  h.setFromTriplets(cross.begin(), cross.end());  // sums repeated pairs
  h.prune(0.0);
  const Eigen::VectorXd d =
      diag.cwiseAbs().cwiseSqrt().unaryExpr([](double v) { return v == 0.0 ? 1.0 : v; });
  const Eigen::VectorXd inv = d.cwiseInverse();
  h = inv.asDiagonal() * h * inv.asDiagonal();
  const Eigen::VectorXd unit = inv.cwiseProduct(diag).cwiseProduct(inv);  // 1, -1 or 0
  Eigen::VectorXd off = Eigen::VectorXd::Zero(k);  // sum of |cross| per variable
  for (Eigen::Index c = 0; c < h.outerSize(); ++c) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(h, c); it; ++it) {
      off(it.row()) += std::abs(it.value());
    }
  }
  bool dominant = true;
  for (Eigen::Index i = 0; i < k; ++i) {
    if (unit(i) < 0.0) return false;  // e_i' H e_i = -1, and the trace bounds the rest
    dominant = dominant && off(i) <= unit(i);
  }
  if (dominant) return true;
  // Blocks: connected components of the cross terms (union-find).
  std::vector<Eigen::Index> parent(static_cast<std::size_t>(k));
  for (Eigen::Index i = 0; i < k; ++i) parent[static_cast<std::size_t>(i)] = i;
  const auto root = [&](Eigen::Index i) {
    while (parent[static_cast<std::size_t>(i)] != i) {
      i = parent[static_cast<std::size_t>(i)] =
          parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(i)])];
    }
    return i;
  };
  for (const auto& t : cross) parent[static_cast<std::size_t>(root(t.row()))] = root(t.col());
  std::unordered_map<Eigen::Index, std::vector<Eigen::Index>> blocks;
  for (Eigen::Index i = 0; i < k; ++i) blocks[root(i)].push_back(i);
  std::vector<Eigen::Index> position(static_cast<std::size_t>(k));
  for (const auto& [r, members] : blocks) {
    if (members.size() == 1) continue;  // a lone square: its unit diagonal is positive
    const auto n = static_cast<Eigen::Index>(members.size());
    for (Eigen::Index j = 0; j < n; ++j) position[static_cast<std::size_t>(members[j])] = j;
    std::vector<Eigen::Triplet<double>> entries;
    for (const Eigen::Index i : members) {
      entries.emplace_back(position[static_cast<std::size_t>(i)],
                           position[static_cast<std::size_t>(i)], unit(i));
      for (Eigen::SparseMatrix<double>::InnerIterator it(h, i); it; ++it) {
        entries.emplace_back(position[static_cast<std::size_t>(it.row())],
                             position[static_cast<std::size_t>(i)], it.value());
      }
    }
    Eigen::SparseMatrix<double> block(n, n);
    block.setFromTriplets(entries.begin(), entries.end());
    if (!block_is_psd(block)) return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------------
// Writing

std::string format_number(double v) {
  if (v == 0.0) return "0";  // never "-0"
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

// Builds one statement, wrapping before a signed term when the line gets long. Continuation
// lines start with an operator, so no reader takes them for a section keyword or a label.
class LineWriter {
 public:
  explicit LineWriter(std::string& out) : out_(out) {}

  void begin(std::string_view head) {
    line_start_ = out_.size();
    out_ += head;
    first_ = true;
  }
  /// A term `coef name`; a zero coefficient is written too (placeholders).
  void term(double coef, std::string_view name) {
    std::string text;
    const double mag = std::abs(coef);
    const std::string body =
        mag == 1.0 ? std::string(name) : fmt::format("{} {}", format_number(mag), name);
    if (first_) {
      text = std::signbit(coef) && coef != 0.0 ? "- " + body : body;
      add(text, false);
    } else {
      text = (std::signbit(coef) && coef != 0.0 ? "- " : "+ ") + body;
      add(text, true);
    }
    first_ = false;
  }
  /// Opens a bracket; terms inside start without a sign again.
  void open_bracket() {
    add(first_ ? "[" : "+ [", !first_);
    first_ = true;
  }
  void close_bracket() {
    add("]", false);
    first_ = false;
  }
  void text(std::string_view t) { add(t, false); }
  void end() { out_ += '\n'; }

 private:
  void add(std::string_view piece, bool breakable) {
    if (breakable && out_.size() - line_start_ + 1 + piece.size() > kLineWidth) {
      out_ += "\n   ";
      line_start_ = out_.size() - 3;
    } else {
      out_ += ' ';
    }
    out_ += piece;
  }

  std::string& out_;
  std::size_t line_start_ = 0;
  bool first_ = true;
};

std::string quad_body(const QuadTerm& t, const std::vector<std::string>& names) {
  const auto& a = names[static_cast<std::size_t>(t.var1)];
  const auto& b = names[static_cast<std::size_t>(t.var2)];
  return t.var1 == t.var2 ? fmt::format("{} ^ 2", a) : fmt::format("{} * {}", a, b);
}

void write_quad_terms(LineWriter& w, const std::vector<QuadTerm>& quad, double scale,
                      const std::vector<std::string>& names) {
  for (const auto& t : quad) {
    const double c = scale * t.coef;
    if (!std::isfinite(c)) {
      throw InvalidArgument(fmt::format("write_lp(): quadratic coefficient {} of {} overflows",
                                        t.coef, quad_body(t, names)));
    }
    w.term(c, quad_body(t, names));
  }
}

// How a variable's bounds are written; empty when they are the default [0, inf).
std::string bound_line(const Variable& v, const std::string& name) {
  const double l = v.lower;
  const double u = v.upper;
  if (v.type == VarType::Binary && l == 0.0 && u == 1.0) return {};
  if (l == u) return fmt::format(" {} = {}", name, format_number(l));
  if (l == -kInfinity && u == kInfinity) return fmt::format(" {} free", name);
  if (l == 0.0 && u == kInfinity) return {};
  if (l == 0.0) return fmt::format(" {} <= {}", name, format_number(u));
  if (u == kInfinity) return fmt::format(" {} >= {}", name, format_number(l));
  // Also for l = -inf: a lone negative upper bound would make CPLEX drop the lower bound
  // but not GLPK, so both are always spelled out.
  return fmt::format(" {} <= {} <= {}", format_number(l), name, format_number(u));
}

bool is_general(const Variable& v) {
  return v.type == VarType::Integer ||
         (v.type == VarType::Binary && !(v.lower == 0.0 && v.upper == 1.0));
}

void write_name_list(std::string& out, const char* header, const std::vector<std::string>& names) {
  if (names.empty()) return;
  out += fmt::format("\n{}\n", header);
  std::size_t width = 0;
  for (const auto& n : names) {
    if (width > 0 && width + 1 + n.size() > kLineWidth) {
      out += '\n';
      width = 0;
    }
    out += ' ';
    out += n;
    width += 1 + n.size();
  }
  out += '\n';
}

// ------------------------------------------------------------------------------------------
// Reading

enum class Tok {
  Name,
  Number,
  Plus,
  Minus,
  Star,
  Caret,
  Slash,
  Colon,
  LBracket,
  RBracket,
  Less,     // <, <=, =<
  Greater,  // >, >=, =>
  Equal,
  Eof,
};

struct Token {
  Tok kind = Tok::Eof;
  std::string_view text;
  double value = 0.0;
  int line = 0;
  bool line_start = false;  ///< first token of its line
};

bool is_relop(Tok k) { return k == Tok::Less || k == Tok::Greater || k == Tok::Equal; }

std::string describe(const Token& t) {
  if (t.kind == Tok::Eof) return "the end of the file";
  return fmt::format("'{}'", t.text);
}

enum class Section { Objective, Constraints, Bounds, Generals, Binaries, End, Unsupported };

struct SectionStart {
  Section section;
  std::size_t tokens;  ///< how many tokens the keyword spans
  bool maximize = false;
};

enum class Where { Objective, Constraint };

struct Expr {
  std::vector<LinearTerm> linear;
  std::vector<QuadTerm> quad;
  double constant = 0.0;
  bool bracket = false;
  bool empty = true;  ///< no term at all, not even a constant
};

struct VarData {
  std::string name;
  int first_line = 0;
  int bound_line = 0;  ///< line of the last bound or type statement, for errors
  bool integer = false;
  bool binary = false;
  double lower = 0.0;
  double upper = kInfinity;
  bool lower_set = false;
  bool upper_set = false;
  bool outside_objective_linear = false;  ///< used in a row or the objective's quadratic part
};

struct RowData {
  std::string name;
  int line = 0;
  Expr lhs;
  RowSense sense = RowSense::LessEqual;
  double rhs = 0.0;
};

class LpReader {
 public:
  LpReader(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  Model read() {
    tokenize();
    const auto start = section_here();
    if (!start || start->section != Section::Objective) {
      fail(peek().line, fmt::format("expected 'Minimize' or 'Maximize' at the start of the "
                                    "model, found {}",
                                    describe(peek())));
    }
    maximize_ = start->maximize;
    pos_ += start->tokens;
    parse_objective();
    bool constraints_seen = false;
    while (true) {
      const Token& t = peek();
      if (t.kind == Tok::Eof) {
        fail(t.line, "expected 'End' after the last section (is the file truncated?)");
      }
      const auto s = section_here();
      if (!s) fail(t.line, fmt::format("expected a section keyword, found {}", describe(t)));
      switch (s->section) {
        case Section::Objective:
          fail(t.line, fmt::format("a model has one objective; found a second {}", describe(t)));
        case Section::Constraints:
          if (constraints_seen) fail(t.line, "a second 'Subject To' section");
          constraints_seen = true;
          pos_ += s->tokens;
          parse_constraints();
          break;
        case Section::Bounds:
          pos_ += s->tokens;
          parse_bounds();
          break;
        case Section::Generals:
        case Section::Binaries:
          pos_ += s->tokens;
          parse_name_list(s->section == Section::Binaries);
          break;
        case Section::End: return build();  // like CPLEX, ignore whatever follows End
        case Section::Unsupported:
          fail(t.line, fmt::format("unsupported section {}: arbo reads objective, constraints, "
                                   "bounds, generals and binaries",
                                   describe(t)));
      }
    }
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw InvalidArgument(fmt::format("{}:{}: {}", source_, line, what));
  }

  // ---- lexer

  void tokenize() {
    const std::size_t n = text_.size();
    std::size_t i = 0;
    int line = 1;
    bool line_start = true;
    while (i < n) {
      const char c = text_[i];
      if (c == '\n') {
        ++line;
        line_start = true;
        ++i;
        continue;
      }
      if (c == '\\') {  // comment to the end of the line (also GLPK's "\* ... *\")
        const std::size_t start = i;
        while (i < n && text_[i] != '\n') ++i;
        if (line_start && text_.substr(start, i - start).starts_with(kOffsetComment)) {
          read_offset(
              text_.substr(start + kOffsetComment.size(), i - start - kOffsetComment.size()), line);
        }
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i;
        continue;
      }
      Token t;
      t.line = line;
      t.line_start = line_start;
      line_start = false;
      const std::size_t start = i;
      const auto next_is = [&](char d) { return i + 1 < n && text_[i + 1] == d; };
      switch (c) {
        case '+':
          t.kind = Tok::Plus;
          ++i;
          break;
        case '-':
          t.kind = Tok::Minus;
          ++i;
          break;
        case '*':
          t.kind = Tok::Star;
          ++i;
          break;
        case '^':
          t.kind = Tok::Caret;
          ++i;
          break;
        case '/':
          t.kind = Tok::Slash;
          ++i;
          break;
        case ':':
          t.kind = Tok::Colon;
          ++i;
          break;
        case '[':
          t.kind = Tok::LBracket;
          ++i;
          break;
        case ']':
          t.kind = Tok::RBracket;
          ++i;
          break;
        case '<':
          t.kind = Tok::Less;
          i += next_is('=') ? 2 : 1;
          break;
        case '>':
          t.kind = Tok::Greater;
          i += next_is('=') ? 2 : 1;
          break;
        case '=':
          t.kind = next_is('<') ? Tok::Less : next_is('>') ? Tok::Greater : Tok::Equal;
          i += t.kind == Tok::Equal ? 1 : 2;
          break;
        default:
          if (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.') {
            i = scan_number(i, t);
          } else if (is_name_start(c)) {
            while (i < n && is_name_char(text_[i])) ++i;
            t.kind = Tok::Name;
          } else {
            const auto u = static_cast<unsigned char>(c);
            fail(line, std::isprint(u) != 0
                           ? fmt::format("unexpected character '{}'", c)
                           : fmt::format("unexpected byte 0x{:02x} (names are ASCII)", u));
          }
      }
      t.text = text_.substr(start, i - start);
      tokens_.push_back(t);
    }
    Token eof;
    eof.kind = Tok::Eof;
    eof.line = line;
    eof.line_start = true;
    tokens_.push_back(eof);
  }

  std::size_t scan_number(std::size_t i, Token& t) {
    const std::size_t n = text_.size();
    const auto digit = [&](std::size_t k) {
      return k < n && std::isdigit(static_cast<unsigned char>(text_[k])) != 0;
    };
    const std::size_t start = i;
    bool digits = false;
    while (digit(i)) ++i, digits = true;
    if (i < n && text_[i] == '.') {
      ++i;
      while (digit(i)) ++i, digits = true;
    }
    if (!digits) fail(current_line(start), "unexpected '.' (a number needs digits)");
    if (i < n && (text_[i] == 'e' || text_[i] == 'E')) {
      std::size_t k = i + 1;
      if (k < n && (text_[k] == '+' || text_[k] == '-')) ++k;
      if (digit(k)) {
        while (digit(k)) ++k;
        i = k;
      }
    }
    const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + i, t.value);
    if (ec != std::errc() || end != text_.data() + i) {
      fail(current_line(start), fmt::format("number '{}' is out of the range of a double",
                                            text_.substr(start, i - start)));
    }
    t.kind = Tok::Number;
    return i;
  }

  // The number of write_lp's offset comment (finite; written in the shortest exact form).
  void read_offset(std::string_view text, int line) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
      text.remove_suffix(1);
    double v = 0.0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
      fail(line, fmt::format("the objective offset '{}' is not a finite number", text));
    }
    offset_ = v;
  }

  int current_line(std::size_t offset) const {
    return 1 + static_cast<int>(std::count(
                   text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
  }

  // ---- token access

  const Token& peek(std::size_t k = 0) const {
    return tokens_[std::min(pos_ + k, tokens_.size() - 1)];
  }
  const Token& next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool peek_word(std::size_t k, std::string_view word) const {
    return peek(k).kind == Tok::Name && lowercase(peek(k).text) == word;
  }

  /// The section keyword starting at the current token, if any. Keywords count only as the
  /// first token of a line and when not followed, on the same line, by an operator: so a
  /// variable called `bin` continuing an expression is still a variable.
  std::optional<SectionStart> section_here() const {
    const Token& t = peek();
    if (t.kind != Tok::Name || !t.line_start) return std::nullopt;
    const auto standalone = [&](std::size_t k) {
      const Token& n = peek(k);
      return n.kind == Tok::Eof || n.line != t.line || n.kind == Tok::Name || n.kind == Tok::Number;
    };
    const std::string w = lowercase(t.text);
    auto make = [&](Section s, std::size_t len) -> std::optional<SectionStart> {
      if (!standalone(len)) return std::nullopt;
      return SectionStart{s, len, false};
    };
    if (w == "minimize" || w == "minimise" || w == "minimum" || w == "min") {
      return make(Section::Objective, 1);
    }
    if (w == "maximize" || w == "maximise" || w == "maximum" || w == "max") {
      auto s = make(Section::Objective, 1);
      if (s) s->maximize = true;
      return s;
    }
    if ((w == "subject" && peek_word(1, "to")) || (w == "such" && peek_word(1, "that"))) {
      return make(Section::Constraints, 2);
    }
    if (w == "st" || w == "s.t." || w == "st.") return make(Section::Constraints, 1);
    if (w == "bounds" || w == "bound") return make(Section::Bounds, 1);
    if (w == "general" || w == "generals" || w == "gen") return make(Section::Generals, 1);
    if (w == "binary" || w == "binaries" || w == "bin") return make(Section::Binaries, 1);
    if (w == "end") return make(Section::End, 1);
    if (w == "semi" && peek(1).kind == Tok::Minus && peek_word(2, "continuous")) {
      return make(Section::Unsupported, 3);
    }
    if (w == "semis" || w == "semi-continuous" || w == "sos" || w == "pwlobj" ||
        (w == "lazy" && peek_word(1, "constraints")) || (w == "user" && peek_word(1, "cuts"))) {
      return make(Section::Unsupported, 1);
    }
    return std::nullopt;
  }

  bool at_section_or_eof() const { return peek().kind == Tok::Eof || section_here().has_value(); }

  // ---- variables

  int var(const Token& t) {
    auto [it, fresh] = index_.emplace(std::string(t.text), static_cast<int>(vars_.size()));
    if (fresh) {
      VarData d;
      d.name = std::string(t.text);
      d.first_line = t.line;
      vars_.push_back(std::move(d));
    }
    if (in_rows_or_quadratic_) {
      vars_[static_cast<std::size_t>(it->second)].outside_objective_linear = true;
    }
    return it->second;
  }

  // ---- sections

  void parse_objective() {
    objective_line_ = peek().line;
    if (peek().kind == Tok::Name && peek(1).kind == Tok::Colon) pos_ += 2;  // its label
    objective_ = parse_expression(Where::Objective, "the objective");
  }

  Expr parse_expression(Where where, const std::string& what) {
    Expr e;
    const auto at_stop = [&] {
      return at_section_or_eof() || (where == Where::Constraint && is_relop(peek().kind));
    };
    bool first = true;
    while (!at_stop()) {
      double sign = 1.0;
      const Token& s = peek();
      if (s.kind == Tok::Plus || s.kind == Tok::Minus) {
        sign = s.kind == Tok::Minus ? -1.0 : 1.0;
        next();
      } else if (!first) {
        fail(s.line, fmt::format("expected '+', '-' or {} in {}, found {}",
                                 where == Where::Objective ? "the next section"
                                                           : "a relational operator (<=, >=, =)",
                                 what, describe(s)));
      }
      first = false;
      e.empty = false;
      const Token& t = peek();
      if (t.kind == Tok::LBracket) {
        parse_bracket(e, sign, where, what);
        continue;
      }
      if (t.kind == Tok::Number) {
        next();
        const Token& n = peek();
        if (n.kind == Tok::Name && !section_here()) {
          next();
          e.linear.push_back(LinearTerm{var(n), sign * t.value});
        } else {
          e.constant += sign * t.value;  // moved to the right-hand side by the caller
        }
      } else if (t.kind == Tok::Name && !section_here()) {
        next();
        e.linear.push_back(LinearTerm{var(t), sign});
      } else {
        fail(t.line, fmt::format("expected a term (a number or a variable name) in {}, found {}",
                                 what, describe(t)));
      }
      if (peek().kind == Tok::Caret || peek().kind == Tok::Star) {
        fail(peek().line, fmt::format("quadratic terms such as 'x ^ 2' or 'x * y' go inside "
                                      "'[ ]' in {}",
                                      what));
      }
    }
    return e;
  }

  void parse_bracket(Expr& e, double sign, Where where, const std::string& what) {
    const int open_line = next().line;  // '['
    e.bracket = true;
    const bool saved = in_rows_or_quadratic_;
    in_rows_or_quadratic_ = true;
    std::vector<QuadTerm> terms;
    bool first = true;
    while (peek().kind != Tok::RBracket) {
      const Token& s = peek();
      if (s.kind == Tok::Eof || section_here()) {
        fail(s.line, fmt::format("expected ']' to close the quadratic part opened on line {} in "
                                 "{}, found {}",
                                 open_line, what, describe(s)));
      }
      double term_sign = 1.0;
      if (s.kind == Tok::Plus || s.kind == Tok::Minus) {
        term_sign = s.kind == Tok::Minus ? -1.0 : 1.0;
        next();
      } else if (!first) {
        fail(s.line, fmt::format("expected '+', '-' or ']' in the quadratic part of {}, found {}",
                                 what, describe(s)));
      }
      first = false;
      double coef = 1.0;
      if (peek().kind == Tok::Number) coef = next().value;
      const Token& v1 = peek();
      if (v1.kind != Tok::Name) {
        fail(v1.line, fmt::format("expected a variable name in the quadratic part of {}, found {}",
                                  what, describe(v1)));
      }
      next();
      const int a = var(v1);
      const Token& op = peek();
      if (op.kind == Tok::Caret) {
        next();
        const Token& p = peek();
        if (p.kind != Tok::Number || p.value != 2.0) {
          fail(p.line, fmt::format("expected '2' after '{} ^' in {} (only squares are "
                                   "supported), found {}",
                                   v1.text, what, describe(p)));
        }
        next();
        terms.push_back(QuadTerm{a, a, term_sign * coef});
      } else if (op.kind == Tok::Star) {
        next();
        const Token& v2 = peek();
        if (v2.kind != Tok::Name) {
          fail(v2.line, fmt::format("expected a variable name after '{} *' in {}, found {}",
                                    v1.text, what, describe(v2)));
        }
        next();
        terms.push_back(QuadTerm{a, var(v2), term_sign * coef});
      } else {
        fail(op.line, fmt::format("expected '^ 2' or '* <variable>' after '{}' in the quadratic "
                                  "part of {} (linear terms go outside '[ ]'), found {}",
                                  v1.text, what, describe(op)));
      }
    }
    next();  // ']'
    in_rows_or_quadratic_ = saved;
    double factor = sign;
    if (where == Where::Objective) {
      const Token& slash = peek();
      if (slash.kind != Tok::Slash) {
        fail(slash.line, fmt::format("expected '/ 2' after ']' in the objective (CPLEX LP "
                                     "halves the objective's quadratic part), found {}",
                                     describe(slash)));
      }
      next();
      const Token& two = peek();
      if (two.kind != Tok::Number || two.value != 2.0) {
        fail(two.line,
             fmt::format("expected '2' after ']' /' in the objective, found {}", describe(two)));
      }
      next();
      factor *= 0.5;
    } else if (peek().kind == Tok::Slash) {
      fail(peek().line, fmt::format("'/ 2' after ']' belongs to the objective only; the "
                                    "quadratic part of {} is not halved",
                                    what));
    }
    for (auto& q : terms) {
      q.coef *= factor;
      e.quad.push_back(q);
    }
  }

  // A signed number or [+-]inf(inity).
  std::optional<double> parse_value() {
    const std::size_t save = pos_;
    double sign = 1.0;
    if (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
      sign = next().kind == Tok::Minus ? -1.0 : 1.0;
    }
    const Token& t = peek();
    if (t.kind == Tok::Number) {
      next();
      return sign * t.value;
    }
    if (t.kind == Tok::Name && is_inf_word(t.text)) {
      next();
      return sign * kInfinity;
    }
    pos_ = save;
    return std::nullopt;
  }

  void parse_constraints() {
    in_rows_or_quadratic_ = true;
    while (!at_section_or_eof()) {
      RowData r;
      r.line = peek().line;
      if (peek().kind == Tok::Name && peek(1).kind == Tok::Colon) {
        r.name = std::string(next().text);
        next();
      }
      const std::string what = r.name.empty()
                                   ? fmt::format("the constraint starting on line {}", r.line)
                                   : fmt::format("constraint '{}'", r.name);
      r.lhs = parse_expression(Where::Constraint, what);
      const Token& op = peek();
      if (!is_relop(op.kind)) {
        fail(op.line, fmt::format("expected a relational operator (<=, >=, =) to end {}, "
                                  "found {}",
                                  what, describe(op)));
      }
      if (r.lhs.empty) {
        fail(op.line, fmt::format("expected a term before '{}' in {}", op.text, what));
      }
      next();
      r.sense = op.kind == Tok::Less      ? RowSense::LessEqual
                : op.kind == Tok::Greater ? RowSense::GreaterEqual
                                          : RowSense::Equal;
      const auto rhs = parse_value();
      if (!rhs) {
        fail(peek().line, fmt::format("expected a number (the right-hand side) after '{}' in "
                                      "{}, found {}",
                                      op.text, what, describe(peek())));
      }
      r.rhs = *rhs - r.lhs.constant;
      r.lhs.constant = 0.0;
      rows_.push_back(std::move(r));
    }
    in_rows_or_quadratic_ = false;
  }

  void apply_bound(int v, Tok op, double value, int line) {
    VarData& d = vars_[static_cast<std::size_t>(v)];
    if (std::abs(value) >= kInfiniteBound) value = value > 0 ? kInfinity : -kInfinity;
    if (op == Tok::Less || op == Tok::Equal) {
      d.upper = value;
      d.upper_set = true;
    }
    if (op == Tok::Greater || op == Tok::Equal) {
      d.lower = value;
      d.lower_set = true;
    }
    d.bound_line = line;
  }

  static Tok mirrored(Tok op) {
    return op == Tok::Less ? Tok::Greater : op == Tok::Greater ? Tok::Less : op;
  }

  void parse_bounds() {
    while (!at_section_or_eof()) {
      const Token& t = peek();
      const int line = t.line;
      const bool value_first =
          t.kind == Tok::Plus || t.kind == Tok::Minus || t.kind == Tok::Number ||
          (t.kind == Tok::Name && is_inf_word(t.text) && is_relop(peek(1).kind));
      if (value_first) {
        const auto v1 = parse_value();
        if (!v1) {
          fail(line, fmt::format("expected a number after '{}' in Bounds, found {}", t.text,
                                 describe(peek(1))));
        }
        const Token& op1 = peek();
        if (!is_relop(op1.kind)) {
          fail(op1.line, fmt::format("expected '<=', '>=' or '=' after '{}' in Bounds, found {}",
                                     format_number(*v1), describe(op1)));
        }
        next();
        const Token& name = peek();
        if (name.kind != Tok::Name) {
          fail(name.line, fmt::format("expected a variable name after '{} {}' in Bounds, found {}",
                                      format_number(*v1), op1.text, describe(name)));
        }
        next();
        const int v = var(name);
        apply_bound(v, mirrored(op1.kind), *v1, line);
        if (is_relop(peek().kind)) {
          const Token& op2 = next();
          const auto v2 = parse_value();
          if (!v2) {
            fail(peek().line, fmt::format("expected a number after '{} {}' in Bounds, found {}",
                                          name.text, op2.text, describe(peek())));
          }
          apply_bound(v, op2.kind, *v2, line);
        }
      } else if (t.kind == Tok::Name) {
        next();
        const int v = var(t);
        if (peek_word(0, "free")) {
          next();
          VarData& d = vars_[static_cast<std::size_t>(v)];
          d.lower = -kInfinity;
          d.upper = kInfinity;
          d.lower_set = d.upper_set = true;
          d.bound_line = line;
        } else if (is_relop(peek().kind)) {
          const Token& op = next();
          const auto value = parse_value();
          if (!value) {
            fail(peek().line, fmt::format("expected a number after '{} {}' in Bounds, found {}",
                                          t.text, op.text, describe(peek())));
          }
          apply_bound(v, op.kind, *value, line);
        } else {
          fail(peek().line, fmt::format("expected '<=', '>=', '=' or 'free' after '{}' in "
                                        "Bounds, found {}",
                                        t.text, describe(peek())));
        }
      } else {
        fail(line, fmt::format("expected a bound such as 'x <= 4', '-inf <= x <= 4', 'x = 3' "
                               "or 'x free' in Bounds, found {}",
                               describe(t)));
      }
    }
  }

  void parse_name_list(bool binary) {
    while (!at_section_or_eof()) {
      const Token& t = peek();
      if (t.kind != Tok::Name) {
        fail(t.line, fmt::format("expected a variable name in the {} section, found {}",
                                 binary ? "Binaries" : "Generals", describe(t)));
      }
      next();
      VarData& d = vars_[static_cast<std::size_t>(var(t))];
      (binary ? d.binary : d.integer) = true;
      d.bound_line = t.line;
    }
  }

  // ---- the model

  Model build() {
    Model m;
    // write_lp's representation of an objective constant: a continuous variable fixed at 1
    // that appears only in the objective's linear part.
    int constant_var = -1;
    if (auto it = index_.find(std::string(kObjConstantName)); it != index_.end()) {
      const VarData& d = vars_[static_cast<std::size_t>(it->second)];
      if (!d.outside_objective_linear && !d.integer && !d.binary && d.lower == 1.0 &&
          d.upper == 1.0) {
        constant_var = it->second;
      }
    }
    std::vector<int> index(vars_.size(), -1);
    for (std::size_t i = 0; i < vars_.size(); ++i) {
      if (static_cast<int>(i) == constant_var) continue;
      const VarData& d = vars_[i];
      const VarType type = d.binary    ? VarType::Binary
                           : d.integer ? VarType::Integer
                                       : VarType::Continuous;
      double lower = d.lower;
      // CPLEX's rule: a negative upper bound alone makes the default lower bound -inf.
      if (d.upper_set && d.upper < 0.0 && !d.lower_set) lower = -kInfinity;
      const int line = d.bound_line > 0 ? d.bound_line : d.first_line;
      if (lower == kInfinity || d.upper == -kInfinity) {
        fail(line, fmt::format("variable '{}' has an infinite bound on the wrong side "
                               "(lower {}, upper {})",
                               d.name, format_number(lower), format_number(d.upper)));
      }
      if (lower > d.upper) {
        fail(line, fmt::format("variable '{}' has lower bound {} above its upper bound {}", d.name,
                               format_number(lower), format_number(d.upper)));
      }
      if (type == VarType::Binary && (lower > 1.0 || d.upper < 0.0)) {
        fail(line, fmt::format("binary variable '{}' has bounds [{}, {}] that exclude both 0 "
                               "and 1",
                               d.name, format_number(lower), format_number(d.upper)));
      }
      index[i] = m.add_variable(d.name, type, lower, d.upper);
    }
    const auto map_linear = [&](const std::vector<LinearTerm>& terms) {
      std::vector<LinearTerm> out;
      out.reserve(terms.size());
      for (const auto& t : terms) out.push_back({index[static_cast<std::size_t>(t.var)], t.coef});
      return merge_linear(out);
    };
    const auto map_quad = [&](const std::vector<QuadTerm>& terms) {
      std::vector<QuadTerm> out;
      out.reserve(terms.size());
      for (const auto& t : terms) {
        out.push_back({index[static_cast<std::size_t>(t.var1)],
                       index[static_cast<std::size_t>(t.var2)], t.coef});
      }
      return merge_quadratic(out);
    };

    Objective obj;
    obj.sense = maximize_ ? ObjectiveSense::Maximize : ObjectiveSense::Minimize;
    obj.constant = objective_.constant;
    obj.offset = offset_;
    std::vector<LinearTerm> linear;
    for (const auto& t : objective_.linear) {
      if (t.var == constant_var) {
        obj.constant += t.coef;
      } else {
        linear.push_back(t);
      }
    }
    obj.linear = map_linear(linear);
    obj.quad = map_quad(objective_.quad);
    try {
      m.set_objective(std::move(obj));
    } catch (const InvalidArgument& e) {
      fail(objective_line_, fmt::format("objective: {}", e.what()));
    }

    // write_lp's placeholder row for a model without rows, which GLPK would not read.
    if (rows_.size() == 1 && rows_[0].name == kNoRowsName && !rows_[0].lhs.bracket &&
        rows_[0].sense == RowSense::GreaterEqual && rows_[0].rhs == 0.0 &&
        map_linear(rows_[0].lhs.linear).empty()) {
      rows_.clear();
    }
    for (auto& r : rows_) {
      try {
        if (!r.lhs.bracket) {
          m.add_linear_row(LinearRow{r.name, map_linear(r.lhs.linear), r.sense, r.rhs});
          continue;
        }
        QuadraticRow q{r.name, map_quad(r.lhs.quad), map_linear(r.lhs.linear), r.sense, r.rhs,
                       false};
        if (q.sense == RowSense::LessEqual) {
          q.convex = is_psd(q.quad, 1.0);
        } else if (q.sense == RowSense::GreaterEqual && is_psd(q.quad, -1.0)) {
          // The model only knows convex rows as `q(x) <= b`.
          for (auto& t : q.quad) t.coef = -t.coef;
          for (auto& t : q.linear) t.coef = -t.coef;
          q.rhs = -q.rhs;
          q.sense = RowSense::LessEqual;
          q.convex = true;
        }
        m.add_quadratic_row(std::move(q));
      } catch (const InvalidArgument& e) {
        fail(r.line, e.what());
      }
    }
    return m;
  }

  std::string_view text_;
  std::string_view source_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  bool maximize_ = false;
  bool in_rows_or_quadratic_ = false;  ///< variables seen now are not the objective constant
  int objective_line_ = 1;
  std::vector<VarData> vars_;
  std::unordered_map<std::string, int> index_;
  Expr objective_;
  double offset_ = std::numeric_limits<double>::quiet_NaN();  ///< from the offset comment
  std::vector<RowData> rows_;
};

}  // namespace

std::string write_lp(const Model& model) {
  const auto& vars = model.variables();
  const auto& linear_rows = model.linear_rows();
  const auto& quad_rows = model.quadratic_rows();
  const Objective& objective = model.objective();
  const std::size_t n = vars.size();
  for (const auto& v : vars) {
    if (std::isnan(v.lower) || std::isnan(v.upper)) {
      throw InvalidArgument(fmt::format("write_lp(): variable '{}' has a NaN bound", v.name));
    }
  }

  std::vector<std::string_view> raw;
  raw.reserve(n);
  for (const auto& v : vars) raw.emplace_back(v.name);
  const std::vector<std::string> names =
      unique_names(raw, [](std::size_t k) { return fmt::format("x{}", k + 1); });
  raw.clear();
  for (const auto& r : linear_rows) raw.emplace_back(r.name);
  for (const auto& r : quad_rows) raw.emplace_back(r.name);
  const std::size_t nl = linear_rows.size();
  const std::vector<std::string> row_names = unique_names(raw, [nl](std::size_t k) {
    return k < nl ? fmt::format("c{}", k + 1) : fmt::format("q{}", k - nl + 1);
  });

  std::vector<LinearTerm> obj_linear = merge_linear(objective.linear);
  std::sort(obj_linear.begin(), obj_linear.end(),
            [](const LinearTerm& a, const LinearTerm& b) { return a.var < b.var; });
  const std::vector<QuadTerm> obj_quad = merge_quadratic(objective.quad);
  std::vector<std::vector<LinearTerm>> lin_terms;
  lin_terms.reserve(nl);
  for (const auto& r : linear_rows) lin_terms.push_back(merge_linear(r.terms));
  std::vector<std::vector<LinearTerm>> qlin_terms;
  std::vector<std::vector<QuadTerm>> qquad_terms;
  for (const auto& r : quad_rows) {
    qlin_terms.push_back(merge_linear(r.linear));
    qquad_terms.push_back(merge_quadratic(r.quad));
  }

  // Readers number variables by first appearance. The objective lists variables 0..last in
  // index order (with zero coefficients where needed) so that those after `last` first appear
  // in index order in the rest of the file: reading gives back the model's variable order.
  constexpr std::size_t kUnseen = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> first(n, kUnseen);
  std::size_t counter = 0;
  const auto see = [&](int v) {
    auto& f = first[static_cast<std::size_t>(v)];
    if (f == kUnseen) f = counter++;
  };
  for (const auto& t : obj_quad) see(t.var1), see(t.var2);
  for (const auto& terms : lin_terms) {
    for (const auto& t : terms) see(t.var);
  }
  for (std::size_t k = 0; k < quad_rows.size(); ++k) {
    for (const auto& t : qlin_terms[k]) see(t.var);
    for (const auto& t : qquad_terms[k]) see(t.var1), see(t.var2);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!bound_line(vars[i], names[i]).empty()) see(static_cast<int>(i));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (is_general(vars[i])) see(static_cast<int>(i));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (vars[i].type == VarType::Binary && !is_general(vars[i])) see(static_cast<int>(i));
  }
  std::ptrdiff_t last = n > 0 ? 0 : -1;
  if (!obj_linear.empty()) last = std::max<std::ptrdiff_t>(last, obj_linear.back().var);
  for (std::size_t i = 0; i < n; ++i) {
    const bool out_of_order = first[i] == kUnseen || (i + 1 < n && first[i] > first[i + 1]);
    if (out_of_order) last = std::max(last, static_cast<std::ptrdiff_t>(i));
  }

  std::string out;
  std::size_t integers = 0, binaries = 0;
  for (const auto& v : vars) {
    integers += is_general(v) ? 1 : 0;
    binaries += v.type == VarType::Binary && !is_general(v) ? 1 : 0;
  }
  out += fmt::format(
      "\\ Written by arbo. Variables: {} ({} integer, {} binary). Linear rows: {}. Quadratic "
      "rows: {}.\n",
      n, integers, binaries, nl, quad_rows.size());
  if (objective.constant != 0.0) {
    out += fmt::format("\\ {} is fixed at 1: its coefficient is the objective's constant term\n",
                       kObjConstantName);
  }
  if (!std::isnan(objective.offset)) {
    if (!std::isfinite(objective.offset)) {
      throw InvalidArgument("write_lp(): the objective offset is not finite");
    }
    out += fmt::format("{}{}\n", kOffsetComment, format_number(objective.offset));
  }
  out += objective.sense == ObjectiveSense::Maximize ? "Maximize\n" : "Minimize\n";
  LineWriter w(out);
  w.begin(" obj:");
  {
    std::size_t k = 0;
    for (std::ptrdiff_t i = 0; i <= last; ++i) {
      double c = 0.0;
      if (k < obj_linear.size() && obj_linear[k].var == i) c = obj_linear[k++].coef;
      w.term(c, names[static_cast<std::size_t>(i)]);
    }
  }
  if (objective.constant != 0.0) {
    if (!std::isfinite(objective.constant)) {
      throw InvalidArgument("write_lp(): the objective constant is not finite");
    }
    w.term(objective.constant, kObjConstantName);
  }
  if (!obj_quad.empty()) {
    w.open_bracket();
    write_quad_terms(w, obj_quad, 2.0, names);
    w.close_bracket();
    w.text("/ 2");
  }
  w.end();

  const auto rhs_text = [](RowSense sense, double rhs) {
    if (std::isnan(rhs)) throw InvalidArgument("write_lp(): a row has a NaN right-hand side");
    return fmt::format("{} {}", to_string(sense), format_number(rhs));
  };
  out += "\nSubject To\n";
  if (nl == 0 && quad_rows.empty() && n > 0) {
    out += fmt::format(" {}: 0 {} >= 0\n", kNoRowsName, names[0]);
  }
  for (std::size_t k = 0; k < nl; ++k) {
    w.begin(fmt::format(" {}:", row_names[k]));
    for (const auto& t : lin_terms[k]) w.term(t.coef, names[static_cast<std::size_t>(t.var)]);
    if (lin_terms[k].empty()) {
      if (n > 0) {
        w.term(0.0, names[0]);
      } else {
        w.text("0");
      }
    }
    w.text(rhs_text(linear_rows[k].sense, linear_rows[k].rhs));
    w.end();
  }
  for (std::size_t k = 0; k < quad_rows.size(); ++k) {
    w.begin(fmt::format(" {}:", row_names[nl + k]));
    for (const auto& t : qlin_terms[k]) w.term(t.coef, names[static_cast<std::size_t>(t.var)]);
    w.open_bracket();
    write_quad_terms(w, qquad_terms[k], 1.0, names);
    if (qquad_terms[k].empty() && n > 0) {
      // The bracket keeps the row quadratic on reading; the placeholder names a variable
      // already seen, so it does not change the variable order.
      const int v = qlin_terms[k].empty() ? 0 : qlin_terms[k].front().var;
      w.term(0.0, fmt::format("{} ^ 2", names[static_cast<std::size_t>(v)]));
    }
    w.close_bracket();
    w.text(rhs_text(quad_rows[k].sense, quad_rows[k].rhs));
    w.end();
  }

  std::string bounds;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string line = bound_line(vars[i], names[i]);
    if (!line.empty()) bounds += line + "\n";
  }
  if (objective.constant != 0.0) bounds += fmt::format(" {} = 1\n", kObjConstantName);
  if (!bounds.empty()) out += "\nBounds\n" + bounds;

  std::vector<std::string> generals, binary_names;
  for (std::size_t i = 0; i < n; ++i) {
    if (is_general(vars[i])) {
      generals.push_back(names[i]);
    } else if (vars[i].type == VarType::Binary) {
      binary_names.push_back(names[i]);
    }
  }
  write_name_list(out, "Generals", generals);
  write_name_list(out, "Binaries", binary_names);
  out += "\nEnd\n";
  return out;
}

Model read_lp(std::string_view text, std::string_view source_name) {
  return LpReader(text, source_name).read();
}

}  // namespace arbo::sdk
