// Body motions (BodyMotion, model_structure.h) to and from a problem's coordinates through
// its ModelStructure: for methods that work in coordinates of their own (the Simbody peer in
// joint coordinates) and for closed-form references that know each body's motion.
//
// A body's block layout follows from its kind and block size:
//   rigid, 3   planar (x, y, theta), v = (x', y', theta')
//   point, 2   planar point mass (x, y)
//   rigid, 7   spatial (x, y, z, e0, e1, e2, e3), v = (r', e'), e' = 1/2 (0, w) e
//              (w global; the Euler-parameter formulation's w = 2 Ebar(e) e', paper 000
//              eq 62, in quaternion form)
//   point, 3   spatial point mass (x, y, z)
// A problem without blocks maps through ModelStructure::coordinates_from_bodies.
#pragma once

#include <string>
#include <vector>

#include "problems/model_structure.h"

namespace mbb {

/// Empty if CoordinatesFromBodies can fill a q of size `n` from `structure`; else why not.
std::string BodyCoordinatesUnsupported(const ModelStructure& structure, int n);

/// (q, v) from the motion of every body (aligned with model.bodies). Angles and Euler
/// parameters are copied as given: their continuity along a run is the caller's.
void CoordinatesFromBodies(const ModelStructure& structure, const std::vector<BodyMotion>& bodies,
                           Vector& q, Vector& v);

/// Every body's motion at (q, v) through the blocks; without blocks, through
/// ModelStructure::bodies_from_coordinates where the problem offers it (a joint tree), else
/// the model's stated pose and twist (which such a problem starts from, model_structure.h).
void BodiesFromCoordinates(const ModelStructure& structure, const Vector& q, const Vector& v,
                           std::vector<BodyMotion>& bodies);

}  // namespace mbb
