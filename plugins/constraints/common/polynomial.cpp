// SPDX-License-Identifier: MIT
#include "polynomial.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace arbo::plugins {

namespace {

void accumulate(std::map<Monomial, double>& terms, const Monomial& m, double c) {
  if (c == 0.0) return;
  auto [it, inserted] = terms.try_emplace(m, c);
  if (inserted) return;
  it->second += c;
  if (it->second == 0.0) terms.erase(it);
}

double monomial_value(const Monomial& m, const std::vector<double>& values) {
  double v = 1.0;
  for (int c : m) v *= values[static_cast<std::size_t>(c)];
  return v;
}

}  // namespace

Polynomial Polynomial::constant(double c) {
  Polynomial p;
  accumulate(p.terms, {}, c);
  return p;
}

Polynomial Polynomial::variable(int coordinate) {
  Polynomial p;
  p.terms.emplace(Monomial{coordinate}, 1.0);
  return p;
}

bool Polynomial::is_constant() const { return degree() == 0; }

double Polynomial::constant_term() const {
  const auto it = terms.find(Monomial{});
  return it == terms.end() ? 0.0 : it->second;
}

int Polynomial::degree() const {
  std::size_t d = 0;
  for (const auto& [m, c] : terms) d = std::max(d, m.size());
  return static_cast<int>(d);
}

std::vector<int> Polynomial::coordinates() const {
  std::vector<int> out;
  for (const auto& [m, c] : terms) out.insert(out.end(), m.begin(), m.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double Polynomial::evaluate(const std::vector<double>& values) const {
  double s = 0.0;
  for (const auto& [m, c] : terms) s += c * monomial_value(m, values);
  return s;
}

double Polynomial::magnitude(const std::vector<double>& values) const {
  double s = 0.0;
  for (const auto& [m, c] : terms) s += std::abs(c * monomial_value(m, values));
  return s;
}

Polynomial add(const Polynomial& a, const Polynomial& b, double b_factor) {
  Polynomial out = a;
  add_to(out, b, b_factor);
  return out;
}

void add_to(Polynomial& a, const Polynomial& b, double b_factor) {
  for (const auto& [m, c] : b.terms) accumulate(a.terms, m, b_factor * c);
}

Polynomial scale(const Polynomial& a, double factor) {
  Polynomial out;
  for (const auto& [m, c] : a.terms) accumulate(out.terms, m, factor * c);
  return out;
}

Expansion multiply(const Polynomial& a, const Polynomial& b, Polynomial& out, std::size_t* budget) {
  out.terms.clear();
  // One monomial buffer for every product: only new terms are copied into the map.
  Monomial m;
  for (const auto& [ma, ca] : a.terms) {
    for (const auto& [mb, cb] : b.terms) {
      if (budget != nullptr && (*budget)-- == 0) return Expansion::TooMuchWork;
      m.clear();
      std::merge(ma.begin(), ma.end(), mb.begin(), mb.end(), std::back_inserter(m));
      accumulate(out.terms, m, ca * cb);
      if (out.terms.size() > kMaxPolynomialTerms) return Expansion::TooManyTerms;
    }
  }
  return Expansion::Ok;
}

Expansion power(const Polynomial& a, int e, Polynomial& out, std::size_t* budget) {
  Polynomial result = Polynomial::constant(1.0);
  Polynomial base = a;
  Polynomial tmp;
  while (e > 0) {
    if (e & 1) {
      if (const Expansion x = multiply(result, base, tmp, budget); x != Expansion::Ok) return x;
      result = std::move(tmp);
    }
    e >>= 1;
    if (e > 0) {
      if (const Expansion x = multiply(base, base, tmp, budget); x != Expansion::Ok) return x;
      base = std::move(tmp);
    }
  }
  out = std::move(result);
  return Expansion::Ok;
}

std::string to_string(const Polynomial& p, const sdk::Space& space) {
  if (p.terms.empty()) return "0";
  std::vector<std::pair<const Monomial*, double>> order;
  order.reserve(p.terms.size());
  for (const auto& [m, c] : p.terms) order.emplace_back(&m, c);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first->size() > b.first->size(); });
  std::string out;
  for (std::size_t t = 0; t < order.size(); ++t) {
    const Monomial& m = *order[t].first;
    const double c = order[t].second;
    if (t == 0) {
      if (c < 0) out += "-";
    } else {
      out += c < 0 ? " - " : " + ";
    }
    const double a = std::abs(c);
    if (m.empty()) {
      out += fmt::format("{}", a);
      continue;
    }
    if (a != 1.0) out += fmt::format("{}*", a);
    for (std::size_t i = 0; i < m.size();) {
      std::size_t j = i;
      while (j < m.size() && m[j] == m[i]) ++j;
      if (i > 0) out += "*";
      out += space[static_cast<std::size_t>(m[i])].name;
      if (j - i > 1) out += fmt::format("^{}", j - i);
      i = j;
    }
  }
  return out;
}

}  // namespace arbo::plugins
