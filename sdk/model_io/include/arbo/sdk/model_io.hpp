// SPDX-License-Identifier: MIT
/// @file
/// @brief Reading and writing `Model`s as CPLEX LP files, so that any model built by plugins
/// can be dumped, inspected, solved standalone (`arbo solve FILE`) or by other solvers.
///
/// Not part of libarbo_sdk.so: this header and its code form the static library
/// `arbo_model_io` (sdk/model_io), which the CLI, the `glpk_bnb` plugin (its `dump_model`
/// option) and the tests link privately. It is not installed with the SDK package.
/// Both functions are pure (no shared state), so they may run on any thread; both are
/// O(size of the model or the text), except the convexity test of `read_lp`, which is cubic
/// in the number of variables of each quadratic row.
///
/// Supported subset of the CPLEX LP format:
/// - `Minimize`/`Maximize` (also `minimise`, `minimum`, `min`, ...) with an optional label, a
///   linear part and an optional quadratic part `+ [ x ^ 2 + 2 x * y ] / 2` (the bracket is
///   halved, as in CPLEX: that objective is `0.5 x^2 + x y`);
/// - `Subject To` (`such that`, `st`, `s.t.`) with linear rows `c: 3 x - y >= 2` and
///   quadratic rows `c: 3 x + [ x ^ 2 + 2 x * y ] <= 4` (not halved); senses `<`, `<=`, `=<`,
///   `>`, `>=`, `=>`, `=`; the right-hand side is a number or `[+-]inf`;
/// - `Bounds`: `l <= x <= u`, `x >= l`, `x <= u`, `u >= x`, `x = v`, `x free`, `-inf`/`+inf`
///   (`infinity`); `General`/`Generals`/`Gen`; `Binary`/`Binaries`/`Bin`; `End`.
/// Keywords are case-insensitive and count only as the first token of a line that is not
/// followed by an operator on the same line (so `bin + x >= 1` is a row). `\` starts a
/// comment to the end of the line. Statements may span lines. Names use letters, digits and
/// `!"#$%&()/,.;?@_'`{}|~`, and start with none of a digit, `.` or `/`. Row names are kept.
/// SOS, semi-continuous, lazy-constraint, user-cut and PWL sections are rejected.
///
/// Conventions shared by the writer and the reader:
/// - Objective constant: GLPK reads no variable-free term, so `write_lp` writes the constant
///   as the coefficient of a continuous variable `obj_constant` fixed at 1 (`obj_constant = 1`
///   in Bounds). `read_lp` folds such a variable back into `Objective::constant` when it is
///   called exactly `obj_constant`, is continuous, fixed at 1 and appears only in the
///   objective's linear part; otherwise it stays an ordinary variable. `read_lp` also accepts a
///   constant term in the objective directly (`obj: x + 5`), as newer CPLEX versions do.
/// - Objective offset (`Objective::offset`, which only changes how solvers measure relative
///   gaps): `write_lp` writes the comment line `\ arbo objective offset: <value>` before the
///   objective when it is declared; `read_lp` takes it from such a line (at a line's start;
///   a value that is not a finite number is an error naming the line). Other readers skip it.
/// - Variable order: readers number variables by first appearance, so the objective lists the
///   first variables in index order, with zero coefficients where needed (`+ 0 x`), as far
///   as necessary for the rest of the file to introduce the others in index order. Reading a
///   written file (with read_lp or GLPK) gives the model's variable order back.
/// - A model without rows gets the row `no_constraints: 0 x >= 0`, since GLPK requires one;
///   `read_lp` drops it when it is the only row.
/// - Constant terms in a row move to the right-hand side; repeated variables in a row (or
///   repeated pairs in a bracket) are summed and zero coefficients dropped, on both sides.
/// - A binary variable whose bounds are not [0, 1] is written as a bounded general integer.
/// - Doubles are written in the shortest form that reads back exactly; bounds of magnitude
///   >= 1e20 read as infinite (as CPLEX does). Like CPLEX (and unlike GLPK), a negative upper
///   bound with no lower bound given makes the lower bound -inf; `write_lp` always writes both.
/// - Whether a quadratic row is convex is not part of the format: `read_lp` marks a `<=` row
///   convex when its Hessian is positive semidefinite, and turns a `>=` row whose negation is
///   convex into the equivalent convex `<=` row (negated coefficients and right-hand side),
///   since the model knows convex rows only in that form. Everything else is nonconvex. The
///   test is an eigenvalue check of the Hessian of the variables involved after scaling it to
///   a unit diagonal, with tolerance 1e-9.
/// Hence `write_lp(read_lp(write_lp(m))) == write_lp(m)` for every model whose `>=`
/// quadratic rows are not concave (and after one round trip for all models).
#pragma once

#include <string>
#include <string_view>

#include "arbo/sdk/model.hpp"

namespace arbo::sdk {

/// Writes `model` in CPLEX LP format, lines wrapped at about 100 characters. Names are made
/// valid: invalid characters become `_`; a name that starts like a number or is a keyword
/// (`end`, `free`, `inf`, `st`, `bin`, `obj_constant`, `e12`, ...) gets a leading `_`; names
/// are cut to 255 characters; duplicates get `_2`, `_3`, ...; empty names become `x<k>` for
/// variables and `c<k>`/`q<k>` for linear/quadratic rows (k from 1). Valid unique names are
/// kept. @throws InvalidArgument for a NaN bound or right-hand side.
std::string write_lp(const Model& model);

/// Parses a CPLEX LP document. `source_name` is used in error messages.
/// @throws InvalidArgument "source:line: expected ..., found '...'" for a syntax error, and
///         with the line of the offending statement for bounds that cross or exclude 0 and 1
///         from a binary.
Model read_lp(std::string_view text, std::string_view source_name = "<lp>");

}  // namespace arbo::sdk
