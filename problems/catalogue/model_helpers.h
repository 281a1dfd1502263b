// Small builders for catalogue entries written as ModelDescriptions in C++ (the catalogue
// builds its model-layer entries in C++ because problems/ may not read JSON; the same
// models are available as JSON model files under problems/models/ for `--model`).
#pragma once

#include <cmath>
#include <string>

#include "problems/core/parameters.h"
#include "problems/model/formulation_registry.h"
#include "problems/model/model_description.h"

namespace mbb {

inline Eigen::Vector3d P(double x, double y, double z = 0.0) { return Eigen::Vector3d(x, y, z); }

/// Planar uniform bar of length L along its body x axis, centre (x, y), angle theta.
inline BodyDescription PlanarBar(const std::string& name, double mass, double length, double x,
                                 double y, double theta) {
  BodyDescription b;
  b.name = name;
  b.mass = mass;
  b.inertia(0, 0) = mass * length * length / 12.0;
  b.position = P(x, y);
  b.angle = theta;
  return b;
}

inline JointDescription Joint(const std::string& name, JointKind kind, const std::string& a,
                              const Eigen::Vector3d& pa, const std::string& b,
                              const Eigen::Vector3d& pb) {
  JointDescription j;
  j.name = name;
  j.kind = kind;
  j.body_a = a;
  j.body_b = b;
  j.point_a = pa;
  j.point_b = pb;
  return j;
}

inline ForceDescription Gravity(const Eigen::Vector3d& g) {
  ForceDescription f;
  f.name = "gravity";
  f.kind = ForceKind::kGravity;
  f.vector = g;
  return f;
}

/// A point-to-point spring-damper from point pa of body a to the origin of body b (a point
/// mass's position), stiffness c, damping d, rest length `rest`.
inline ForceDescription SpringDamper(const std::string& name, const std::string& a,
                                     const Eigen::Vector3d& pa, const std::string& b, double c,
                                     double d, double rest) {
  ForceDescription f;
  f.name = name;
  f.kind = ForceKind::kSpringDamper;
  f.body_a = a;
  f.point_a = pa;
  f.body_b = b;
  f.stiffness = c;
  f.damping = d;
  f.rest_length = rest;
  return f;
}

/// A planar torsional spring-damper on theta_b - theta_a (rest angle `rest`).
inline ForceDescription TorsionalSpring(const std::string& name, const std::string& a,
                                        const std::string& b, double stiffness, double damping,
                                        double rest = 0.0) {
  ForceDescription f;
  f.name = name;
  f.kind = ForceKind::kTorsionalSpring;
  f.body_a = a;
  f.body_b = b;
  f.stiffness = stiffness;
  f.damping = damping;
  f.rest_length = rest;
  return f;
}

inline OutputDescription Output(const std::string& name, OutputKind kind, const std::string& body,
                                const Eigen::Vector3d& point = Eigen::Vector3d::Zero()) {
  OutputDescription o;
  o.name = name;
  o.kind = kind;
  o.body = body;
  o.point = point;
  return o;
}

/// An output measured in the frame of `reference_body` (empty: the global frame).
inline OutputDescription RelativeOutput(const std::string& name, OutputKind kind,
                                        const std::string& body,
                                        const std::string& reference_body) {
  OutputDescription o = Output(name, kind, body);
  o.reference_body = reference_body;
  return o;
}

/// The rotation angle of `body` about `axis`, relative to `reference_body` (empty: ground).
inline OutputDescription AngleAbout(const std::string& name, const std::string& body,
                                    const Eigen::Vector3d& axis,
                                    const std::string& reference_body = "") {
  OutputDescription o = RelativeOutput(name, OutputKind::kAngle, body, reference_body);
  o.axis = axis;
  return o;
}

/// The `formulation` choice parameter of a model-layer catalogue entry whose model has
/// `dimension`: every registered formulation accepting it, the default as without one
/// (joint-tree too: a loop's cut joints become its closure constraints).
inline ParameterSpec FormulationParameter(int dimension) {
  const std::vector<std::string> choices = FormulationsFor(dimension);
  return {"formulation", DefaultFormulation(dimension),
          "coordinate set the model is compiled in (problems/model/formulation_registry.h)",
          choices};
}

}  // namespace mbb
