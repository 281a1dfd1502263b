// The joint-tree formulation's force elements, energy, power and momenta in absolute
// coordinates (joint_tree.h; the f_i of paper 004 eq. (11)): the planar formulation's
// elements (model_equations.h) evaluated element by element, O(N).
#include "problems/model/joint_tree_internal.h"

namespace mbb {

namespace {

// A body point and its velocity (the ground: s itself, at rest).
void PointMotion(const std::vector<ForceBody>& bodies, int body, const Eigen::Vector2d& s,
                 const Vector& p, const Vector& pv, Eigen::Vector2d& x, Eigen::Vector2d& xv,
                 Eigen::Vector2d& arm) {
  if (body < 0) {
    x = s;
    xv.setZero();
    arm.setZero();
    return;
  }
  const ForceBody& b = bodies[body];
  arm = b.d == 3 ? Rotate(p(b.p_offset + 2), s) : s;
  x = p.segment<2>(b.p_offset) + arm;
  xv = pv.segment<2>(b.p_offset);
  if (b.d == 3) xv += pv(b.p_offset + 2) * Perp(arm);
  if (b.d != 3) arm.setZero();  // a point mass takes no torque
}

void AddForce(const std::vector<ForceBody>& bodies, int body, const Eigen::Vector2d& arm,
              const Eigen::Vector2d& force, VectorRef& f) {
  if (body < 0) return;
  const ForceBody& b = bodies[body];
  f.segment<2>(b.p_offset) += force;
  if (b.d == 3) f(b.p_offset + 2) += arm.x() * force.y() - arm.y() * force.x();
}

double AngleRate(const std::vector<ForceBody>& bodies, int body, const Vector& x) {
  return body < 0 || bodies[body].d != 3 ? 0.0 : x(bodies[body].p_offset + 2);
}

}  // namespace

// The planar formulation's force elements (model_equations.h) evaluated directly in
// absolute coordinates: one pass over the elements, O(N) (the planar DAE differentiates its
// potential one coordinate at a time, O(N^2)). tests/test_recursive.cc checks both agree.
void JointTreeDae::CalcAppliedForces(double t, const Vector& p, const Vector& pv, VectorRef f,
                                     bool with_potential) const {
  f.setZero();
  Eigen::Vector2d xa, xva, arma, xb, xvb, armb;
  const double potential = with_potential ? 1.0 : 0.0;  // weight of gravity and springs
  for (const ForceElement& e : force_elements_) {
    switch (e.kind) {
      case ForceKind::kGravity:
        if (!with_potential) break;
        for (int i = 0; i < num_bodies(); ++i)
          f.segment<2>(force_bodies_[i].p_offset) +=
              force_bodies_[i].mass * forces_[e.source].vector.head<2>();
        break;
      case ForceKind::kSpringDamper: {
        PointMotion(force_bodies_, e.a, force_points_[e.points].sa, p, pv, xa, xva, arma);
        PointMotion(force_bodies_, e.b, force_points_[e.points].sb, p, pv, xb, xvb, armb);
        const Eigen::Vector2d d = xb - xa;
        const double length = d.norm();
        const Eigen::Vector2d dir = d / length;
        const double rate = dir.dot(xvb - xva);
        const Eigen::Vector2d force =
            -(potential * e.stiffness * (length - e.rest) + e.damping * rate) * dir;  // on b
        AddForce(force_bodies_, e.b, armb, force, f);
        AddForce(force_bodies_, e.a, arma, -force, f);
        break;
      }
      case ForceKind::kTorsionalSpring: {
        const double rel = AngleRate(force_bodies_, e.b, p) - AngleRate(force_bodies_, e.a, p);
        const double rate = AngleRate(force_bodies_, e.b, pv) - AngleRate(force_bodies_, e.a, pv);
        const double torque = -potential * e.stiffness * (rel - e.rest) - e.damping * rate;  // on b
        if (e.b >= 0 && force_bodies_[e.b].d == 3) f(force_bodies_[e.b].p_offset + 2) += torque;
        if (e.a >= 0 && force_bodies_[e.a].d == 3) f(force_bodies_[e.a].p_offset + 2) -= torque;
        break;
      }
      case ForceKind::kForce: {
        PointMotion(force_bodies_, e.a, force_points_[e.points].sa, p, pv, xa, xva, arma);
        const TreeForce& applied = forces_[e.source];
        AddForce(force_bodies_, e.a, arma, applied.law.Eval(t) * applied.vector.head<2>(), f);
        break;
      }
      case ForceKind::kTorque:
        if (e.a >= 0 && force_bodies_[e.a].d == 3)
          f(force_bodies_[e.a].p_offset + 2) +=
              forces_[e.source].law.Eval(t) * forces_[e.source].vector.z();
        break;
    }
  }
}

// The planar formulation's potential (model_equations.h), element by element.
double JointTreeDae::PotentialEnergy(double /*t*/, const Vector& p) const {
  double energy = 0.0;
  Eigen::Vector2d xa, xva, arma, xb, xvb, armb;
  for (const ForceElement& e : force_elements_) {
    switch (e.kind) {
      case ForceKind::kGravity:  // V = -m g . x
        for (int i = 0; i < num_bodies(); ++i)
          energy -= force_bodies_[i].mass *
                    forces_[e.source].vector.head<2>().dot(p.segment<2>(force_bodies_[i].p_offset));
        break;
      case ForceKind::kSpringDamper: {
        // p as p': the velocities are not used.
        PointMotion(force_bodies_, e.a, force_points_[e.points].sa, p, p, xa, xva, arma);
        PointMotion(force_bodies_, e.b, force_points_[e.points].sb, p, p, xb, xvb, armb);
        const double stretch = (xb - xa).norm() - e.rest;
        energy += 0.5 * e.stiffness * stretch * stretch;
        break;
      }
      case ForceKind::kTorsionalSpring: {
        const double rel =
            AngleRate(force_bodies_, e.b, p) - AngleRate(force_bodies_, e.a, p) - e.rest;
        energy += 0.5 * e.stiffness * rel * rel;
        break;
      }
      case ForceKind::kForce:
      case ForceKind::kTorque:
        break;  // applied: in the power, not the potential
    }
  }
  return energy;
}

// Energy, power and momenta from the absolute coordinates body by body and element by
// element, O(N): the planar DAE's own would fill its dense n x n mass matrix.
double JointTreeDae::CalcEnergy(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                ConstVectorRef v) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  if (spatial()) return SpatialEnergy(ws, q, v);
  CalcAbsolute(ws, q, v, ws.p, ws.pv);
  double kinetic = 0.0;
  for (int i = 0; i < num_bodies(); ++i) {
    const auto pv_i = ws.pv.segment(bodies_[i].p_offset, bodies_[i].d);
    kinetic += 0.5 * pv_i.dot(mass_blocks_[i] * pv_i);
  }
  return kinetic + PotentialEnergy(t, ws.p);
}

double JointTreeDae::CalcAppliedPower(DaeWorkspace& ws_base, double t, ConstVectorRef q,
                                      ConstVectorRef v) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  if (spatial()) return SpatialAppliedPower(ws, t, q, v);
  CalcAbsolute(ws, q, v, ws.p, ws.pv);
  CalcAppliedForces(t, ws.p, ws.pv, ws.body_forces, /*with_potential=*/false);
  return ws.body_forces.dot(ws.pv);
}

void JointTreeDae::CalcMomenta(DaeWorkspace& ws_base, ConstVectorRef q, ConstVectorRef v,
                               Eigen::Vector3d& linear, Eigen::Vector3d& angular) const {
  TreeWorkspace& ws = TreeWorkspace::Of(ws_base);
  if (spatial()) {
    SpatialMomenta(ws, q, v, linear, angular);
    return;
  }
  CalcAbsolute(ws, q, v, ws.p, ws.pv);
  linear.setZero();
  angular.setZero();
  for (int i = 0; i < num_bodies(); ++i) {
    const TreeBody& b = bodies_[i];
    const double m = mass_blocks_[i](0, 0);
    const Eigen::Vector2d x = ws.p.segment<2>(b.p_offset), xv = ws.pv.segment<2>(b.p_offset);
    linear.head<2>() += m * xv;
    angular.z() += m * (x.x() * xv.y() - x.y() * xv.x());
    if (b.d == 3) angular.z() += mass_blocks_[i](2, 2) * ws.pv(b.p_offset + 2);
  }
}

}  // namespace mbb
