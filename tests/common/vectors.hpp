// SPDX-License-Identifier: MIT
// Points written as lists in tests: vec({0.5, 1.0}), vec(levels).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <vector>

#include <Eigen/Core>

namespace arbo::test {

inline Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (double d : v) out[i++] = d;
  return out;
}

template <class T>
Eigen::VectorXd vec(const std::vector<T>& v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) out[static_cast<Eigen::Index>(i)] = v[i];
  return out;
}

}  // namespace arbo::test
