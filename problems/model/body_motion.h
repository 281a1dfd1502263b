// Body motions (BodyMotion, model_structure.h) to and from a problem's coordinates through
// its ModelStructure, and a body's rotation, position and point Jacobians at q: for methods
// that work in coordinates of their own (the Simbody and MuJoCo peers, the recursive methods
// in joint coordinates), for paper 003's reactions, and for closed-form references that
// know each body's motion. The one place that reads a coordinate block.
//
// A block is read as its formulation declared it (BodyCoordinates::layout), never guessed
// from its size:
//   kPlanarPose        (x, y, theta), v = (x', y', theta')
//   kPlanarPoint       (x, y)
//   kEulerParameters   (x, y, z, e0, e1, e2, e3), v = (r', e'), e' = 1/2 (0, w) e
//                      (w global; the Euler-parameter formulation's w = 2 Ebar(e) e', paper
//                      000 eq 62, in quaternion form)
//   kSpatialPoint      (x, y, z)
//   kPlanarDirectors   (x, y, d_1, d_2), d_I = R e_I (paper 002 eqs 21-25)
//   kSpatialDirectors  (x, y, z, d_1, d_2, d_3)
// A block of kUndeclared layout, or whose size is not its layout's, is refused with the
// body's and the formulation's names. A problem without blocks maps through
// ModelStructure::coordinates_from_bodies.
#pragma once

#include <string>
#include <vector>

#include "problems/model/model_structure.h"

namespace mbb {

/// Coordinates per body a layout holds (0 for kUndeclared).
int BodyLayoutSize(BodyLayout layout);
/// The layout's name for messages ("Euler parameters (x, y, z, e0..e3)", ...).
std::string BodyLayoutName(BodyLayout layout);

/// Empty if CoordinatesFromBodies can fill a q of size `n` from `structure`; else why not.
std::string BodyCoordinatesUnsupported(const ModelStructure& structure, int n);

/// (q, v) from the motion of every body (aligned with model.bodies). Angles and Euler
/// parameters are copied as given: their continuity along a run is the caller's. A layout
/// BodyCoordinatesUnsupported refuses is a caller's error (aborts).
void CoordinatesFromBodies(const ModelStructure& structure, const std::vector<BodyMotion>& bodies,
                           Vector& q, Vector& v);

/// Every body's motion at (q, v) through the blocks; without blocks, through
/// ModelStructure::bodies_from_coordinates where the problem offers it (a joint tree), else
/// the model's stated pose and twist (which such a problem starts from, model_structure.h).
void BodiesFromCoordinates(const ModelStructure& structure, const Vector& q, const Vector& v,
                           std::vector<BodyMotion>& bodies);

/// Empty if the rotation, point and Jacobian functions below can read every body of
/// `structure` (planar pose, Euler-parameter and point blocks; or, in the plane, a q that
/// offers ModelStructure::planar_body_jacobian); else why not, naming the body and the
/// formulation. Bodies are indices into model.bodies, -1 the ground; none allocates.
std::string BodyJacobiansUnsupported(const ModelStructure& structure);

/// Spatial: rotation body -> global of `body` at q (identity for the ground and a point mass).
Eigen::Matrix3d BodyRotation(const ModelStructure& structure, const Vector& q, int body);
/// Spatial: global position of the body-frame point s (the ground: s itself).
Eigen::Vector3d BodyPoint(const ModelStructure& structure, const Vector& q, int body,
                          const Eigen::Vector3d& s);
/// Spatial: Jacobians (3 x n) of the global position of body point s (jp) and of the global
/// angular velocity (jw): p' = r' + w x (A s), w = 2 Ebar(e) e' (paper 000 eq 62).
void SpatialPointJacobian(const ModelStructure& structure, const Vector& q, int body,
                          const Eigen::Vector3d& s, Matrix& jp, Matrix& jw);

/// Planar: the body's angle at q (0 for the ground and a point mass; body blocks only).
double PlanarBodyAngle(const ModelStructure& structure, const Vector& q, int body);
/// Planar: global position of the body-frame point s (body blocks only; ground: s itself).
Eigen::Vector2d PlanarBodyPoint(const ModelStructure& structure, const Vector& q, int body,
                                const Eigen::Vector2d& s);
/// Planar: Jacobian (2 x n) of the global position of body point s and the gradient (n) of
/// the body's angle, from the blocks or the structure's planar_body_jacobian.
void PlanarPointJacobian(const ModelStructure& structure, const Vector& q, int body,
                         const Eigen::Vector2d& s, Matrix& j, Vector& angle);

}  // namespace mbb
