// SPDX-License-Identifier: MIT
/// @file
/// @brief Every optional capability at once. Include the header of your component's kind
/// instead; this umbrella stays so that code written against the single header compiles.
///
/// A capability is an extra base class a component may derive from besides its kind's
/// interface. The kernel and other plugins discover it with `dynamic_cast` on the component
/// (its typeinfo is exported from libarbo_sdk.so, so the cast works across libraries). New
/// capabilities are how the SDK grows without breaking plugins (P18): an interface's virtual
/// set never changes within an ABI version, but a capability class can be added at any minor
/// version. The capabilities are grouped by the kind that implements them:
///
/// | header                       | capability              | asked for by                     |
/// |------------------------------|-------------------------|----------------------------------|
/// | capabilities/surrogate.hpp   | FormulatesSurrogate     | formulating acquisitions; kernel |
/// |                              | DecodesSolution         | model-based inner solvers        |
/// |                              | DensityModel            | acquisition/ctpe                 |
/// |                              | ReportsGoodFraction     | acquisition/ctpe                 |
/// |                              | FitsPartialObservations | kernel (knowledge augmentation)  |
/// |                              | PosteriorSampler        | no stock component yet           |
/// |                              | PosteriorMixture        | acquisition/lcb (integrated)     |
/// |                              | FormulatesMixture       | acquisition/lcb; kernel          |
/// |                              | RepresentsRegions       | kernel ([proposal] representative)|
/// |                              | SavesState              | kernel (stored with proposals)   |
/// | capabilities/acquisition.hpp | FormulatesAcquisition   | model-based inner solvers        |
/// |                              | ProposesCandidates      | inner_solver/candidate_pool      |
/// | capabilities/constraint.hpp  | FormulatesConstraint    | model-based solvers, projection  |
/// |                              | ProjectsPoints          | no stock component yet           |
/// |                              | ReportsRowExcesses      | kernel ([proposal] known_penalty)|
/// | capabilities/problem.hpp     | HasKnownConstraints     | kernel (adds them to the study)  |
/// | capabilities/inner_solver.hpp| IgnoresDataWithoutModel | kernel (skips the dataset update)|
///
/// `DecodesSolution` is in the surrogate header because the region it decodes is the
/// surrogate's (a tree's leaf cell); an acquisition that formulates through its surrogates
/// implements it too, by forwarding, since the solver asks the acquisition.
#pragma once

#include "arbo/sdk/capabilities/acquisition.hpp"
#include "arbo/sdk/capabilities/constraint.hpp"
#include "arbo/sdk/capabilities/inner_solver.hpp"
#include "arbo/sdk/capabilities/problem.hpp"
#include "arbo/sdk/capabilities/surrogate.hpp"
