// A model turned into equations: what every coordinate set produces (planar_formulation.cc:
// (x, y, theta); spatial_formulation.cc: Cartesian position + Euler parameters, paper 000
// eq 61). The equations and the glue are written once (model_equations.h,
// model_compiler.h) against a body-kinematics policy per coordinate set. A further
// coordinate set (directors, joint coordinates on a tree) adds a policy, a Formulate*
// function and an entry in formulation_registry.cc; the assembly (model_assembly.h), the
// Problem builder and the methods stay unchanged.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "problems/core/mechanical_dae.h"
#include "problems/model/model_description.h"
#include "problems/model/model_structure.h"

namespace mbb {

struct FormulatedModel {
  /// The model the equations were written for (for a lifted planar model: the spatial one).
  ModelDescription model;
  std::shared_ptr<const MechanicalDae> dae;
  /// The model's stated initial pose and twist in these coordinates (not yet consistent).
  Vector q_guess, v_guess;
  /// Held initial values as linear rows: hold_q q = hold_q q_guess and
  /// hold_v v = hold_v v_guess during assembly (what the source states).
  Matrix hold_q, hold_v;
  std::vector<std::string> hold_names_q, hold_names_v;
  /// 1 for coordinates / velocities whose stated value is meant (not an estimate): the
  /// assembly warns when it has to change one of them.
  Vector stated_q, stated_v;
  /// Name of each constraint row ("joint 'A' (revolute) row 2"), for error messages.
  std::vector<std::string> constraint_names;
  /// The coordinates of each body (aligned with model.bodies) and the owner of every
  /// constraint row, in row order (ModelStructure).
  std::vector<BodyCoordinates> body_coordinates;
  std::vector<ConstraintRows> rows;
  /// For coordinates that are not body blocks (`body_coordinates` empty):
  /// ModelStructure::coordinates_from_bodies.
  std::function<void(const std::vector<BodyMotion>& bodies, Vector& q, Vector& v)>
      coordinates_from_bodies;
  /// Its inverse, where the coordinates offer one (ModelStructure::bodies_from_coordinates).
  std::function<void(const Vector& q, const Vector& v, std::vector<BodyMotion>& bodies)>
      bodies_from_coordinates;
  /// Per coordinate: 2 pi for an angle that may turn without bound (a planar body's theta,
  /// a revolute joint's angle in joint coordinates), 0 otherwise (Problem::coordinate_periods).
  std::vector<double> coordinate_periods;
  /// Offsets of the coordinate blocks that are unit quaternions (Euler parameters): e and
  /// -e are one attitude (Problem::unit_quaternion_offsets).
  std::vector<int> unit_quaternion_offsets;
  /// True when the formulation's angle outputs are computed modulo 2 pi (from a rotation
  /// matrix or an atan2): the harness unwraps them along a run (Problem::output_periods).
  /// False when an angle output is a sum of coordinates, continuous as they are.
  bool angle_outputs_wrap = false;
  /// Output values in ModelDescription::outputs order.
  std::function<void(double t, const Vector& q, const Vector& v, Vector& out)> calc_outputs;
};

/// Every Formulate* takes the model by value and keeps it as FormulatedModel::model: moved
/// in, it is not copied.
///
/// Planar bodies in (x, y, theta), point masses in (x, y). Requires dimension 2 and a
/// model that passed ValidatePlanarModel.
FormulatedModel FormulatePlanar(ModelDescription model);
/// Spatial bodies in (x, y, z, e0..e3) with e^T e = 1 per body (paper 000 eq 61d), point
/// masses in (x, y, z). Requires dimension 3 and a model that passed
/// ValidateEulerParameterModel.
FormulatedModel FormulateSpatialEuler(ModelDescription model);

/// Rigid bodies in centre of mass + directors (paper 002 eqs 21-25): 12 coordinates in
/// space, 6 in the plane, constant mass matrix, quadratic internal constraints; point
/// masses in their position (director_formulation.cc). Requires a model that passed
/// ValidateDirectorModel.
FormulatedModel FormulateDirectors(ModelDescription model);

/// The rules of each formulation beyond ValidateModel's common ones (joint kinds, inertia,
/// held values, driver coordinates, output components); throw InputError naming the model
/// and the element.
void ValidatePlanarModel(const ModelDescription& model);
void ValidateEulerParameterModel(const ModelDescription& model);
void ValidateDirectorModel(const ModelDescription& model);

/// The position (p) or velocity (pv) component a point output selects; false for kAngle,
/// which each formulation computes itself. p and pv hold 3 components (z = 0 in the plane).
inline bool PointComponent(OutputKind kind, const double* p, const double* pv, double& value) {
  switch (kind) {
    case OutputKind::kPointX:
      value = p[0];
      return true;
    case OutputKind::kPointY:
      value = p[1];
      return true;
    case OutputKind::kPointZ:
      value = p[2];
      return true;
    case OutputKind::kPointVX:
      value = pv[0];
      return true;
    case OutputKind::kPointVY:
      value = pv[1];
      return true;
    case OutputKind::kPointVZ:
      value = pv[2];
      return true;
    case OutputKind::kAngle:
      return false;
  }
  return false;
}

}  // namespace mbb
