// Spatial joints of the joint-tree formulation (joint_tree_spatial.h; paper 004 s3.1,
// eqs (7)-(9) with K_i = I).
//
// With u_a the parent's joint point (R_a s_a; a point mass or the ground: s_a), tau the
// link of a distance joint or the offset of a free body (global, not turning with the
// parent), s = sum_j w_j t_j the slides along the parent's axes w_j = R_a W_j (turning with
// it; arm = u_a + s) and u_b = R_b s_b the child's joint point (a point mass: s_b), the
// explicit form (7) and its derivatives (8), (9) are
//   x_b   = x_a + arm + tau - u_b
//   v_b   = v_a + w_a x arm + sum_j w_j t_j' + tau' - w_b x u_b
//   v_b'  = v_a' + w_a' x arm + w_a x (w_a x arm) + 2 w_a x sum_j w_j t_j' + sum_j w_j t_j''
//           + tau'' - w_b' x u_b - w_b x (w_b x u_b)
//   w_b   = w_a + sum_k a_k f_k'                    (a_k the Euler or joint axes, global)
//   w_b'  = w_a' + sum_k a_k f_k'' + sum_k a_k' f_k',  a_k' = (w_a + sum_{l<k} a_l f_l') x a_k
// and with w_b' = w_a' + ... the A, B, c blocks of (9) follow term by term.
#include "problems/model/joint_tree_spatial.h"

#include <cmath>

namespace mbb {
namespace {

Eigen::Matrix3d RotZ(double a) {
  return Eigen::AngleAxisd(a, Eigen::Vector3d::UnitZ()).toRotationMatrix();
}
Eigen::Matrix3d RotX(double a) {
  return Eigen::AngleAxisd(a, Eigen::Vector3d::UnitX()).toRotationMatrix();
}

// The link direction of a distance joint and its first and second derivatives in alpha,
// beta (in the chart's frame; G rotates them to global).
struct LinkDirection {
  Eigen::Vector3d e, ea, eb, eaa, eab, ebb;
};

LinkDirection Direction(double a, double b) {
  const double ca = std::cos(a), sa = std::sin(a), cb = std::cos(b), sb = std::sin(b);
  LinkDirection d;
  d.e << ca * cb, sa * cb, -sb;
  d.ea << -sa * cb, ca * cb, 0.0;
  d.eb << -ca * sb, -sa * sb, -cb;
  d.eaa << -ca * cb, -sa * cb, 0.0;
  d.eab << sa * sb, -ca * sb, 0.0;
  d.ebb << -ca * cb, -sa * cb, sb;
  return d;
}

double Unwrap(double angle, double hint) { return hint + std::remainder(angle - hint, 2.0 * M_PI); }

// The relative rotation R_a^T R_b (a point-mass parent or the ground: R_b).
Eigen::Matrix3d Relative(const SpatialFrame* parent, bool parent_rigid, const SpatialFrame& child) {
  return parent && parent_rigid ? Eigen::Matrix3d(parent->R.transpose() * child.R) : child.R;
}

// The parent's joint point u_a (global) and its rotation matrix and angular velocity.
void ParentTerms(const SpatialJoint& g, const SpatialFrame* parent, bool parent_rigid,
                 Eigen::Vector3d& xa, Eigen::Vector3d& va, Eigen::Vector3d& wa, Eigen::Matrix3d& Ra,
                 Eigen::Vector3d& ua) {
  xa.setZero();
  va.setZero();
  wa.setZero();
  Ra.setIdentity();
  if (parent) {
    xa = parent->x;
    va = parent->v;
    if (parent_rigid) {
      wa = parent->w;
      Ra = parent->R;
    }
  }
  ua = Ra * g.s_a;
}

}  // namespace

Eigen::Matrix3d Skew(const Eigen::Vector3d& u) {
  Eigen::Matrix3d s;
  s << 0.0, -u.z(), u.y(), u.z(), 0.0, -u.x(), -u.y(), u.x(), 0.0;
  return s;
}

int SpatialJoint::translation_count() const {
  switch (translation) {
    case Translation::kWorld:
      return 3;
    case Translation::kDistance:
      return 2;
    case Translation::kParentAxes:
      return num_axes;
    case Translation::kNone:
      break;
  }
  return 0;
}

int SpatialJoint::rotation_count() const {
  switch (rotation) {
    case Rotation::kEuler:
      return 3;
    case Rotation::kAxis:
      return 1;
    case Rotation::kNone:
    case Rotation::kLocked:
      break;
  }
  return 0;
}

double SpatialJointKinematics(const SpatialJoint& g, const SpatialFrame* parent, bool parent_rigid,
                              bool child_rigid, const double* q, const double* qv,
                              SpatialFrame& child, BodyMatrix& A, BodyMatrix& B, BodyVector& c) {
  const int d = child_rigid ? 6 : 3;
  const int da = parent ? (parent_rigid ? 6 : 3) : 0;
  const int nt = g.translation_count(), n = nt + g.rotation_count();
  A.setZero(d, da);
  B.setZero(d, n);
  c.setZero(d);
  Eigen::Vector3d xa, va, wa, ua;
  Eigen::Matrix3d Ra;
  ParentTerms(g, parent, parent_rigid, xa, va, wa, Ra, ua);
  double margin = 1.0;

  // Translation part: tau, tau' and the velocity terms of tau''; the slides s along the
  // parent's axes and their relative rate.
  Eigen::Vector3d tau = Eigen::Vector3d::Zero(), tau_v = Eigen::Vector3d::Zero(),
                  tau_c = Eigen::Vector3d::Zero();
  Eigen::Vector3d slide = Eigen::Vector3d::Zero(), slide_v = Eigen::Vector3d::Zero();
  if (g.translation == SpatialJoint::Translation::kWorld) {
    tau << q[0], q[1], q[2];
    tau_v << qv[0], qv[1], qv[2];
    B.block<3, 3>(0, 0).setIdentity();
  } else if (g.translation == SpatialJoint::Translation::kDistance) {
    const LinkDirection e = Direction(q[0], q[1]);
    const double ad = qv[0], bd = qv[1];
    tau = g.length * (g.link_chart * e.e);
    tau_v = g.length * (g.link_chart * (e.ea * ad + e.eb * bd));
    tau_c = g.length * (g.link_chart * (e.eaa * ad * ad + 2.0 * e.eab * ad * bd + e.ebb * bd * bd));
    B.block<3, 1>(0, 0) = g.length * (g.link_chart * e.ea);
    B.block<3, 1>(0, 1) = g.length * (g.link_chart * e.eb);
    margin = std::min(margin, std::abs(std::cos(q[1])));
  } else if (g.translation == SpatialJoint::Translation::kParentAxes) {
    for (int j = 0; j < g.num_axes; ++j) {
      const Eigen::Vector3d w = Ra * g.axes.col(j);
      slide += w * q[j];
      slide_v += w * qv[j];
      B.block<3, 1>(0, j) = w;
    }
  }
  const Eigen::Vector3d arm = ua + slide;  // turns with the parent

  // Rotation part: R_b, w_b, the Euler axes a_k (columns of B) and w_c = sum a_k' f_k'.
  Eigen::Vector3d wb = wa, wc = Eigen::Vector3d::Zero();
  if (g.rotation == SpatialJoint::Rotation::kEuler) {
    const double* f = q + nt;
    const double* fd = qv + nt;
    const Eigen::Matrix3d base = Ra * g.euler_chart;
    const Eigen::Matrix3d after_z = base * RotZ(f[0]);
    const Eigen::Matrix3d after_x = after_z * RotX(f[1]);
    const Eigen::Vector3d axes[3] = {base.col(2), after_z.col(0), after_x.col(2)};
    for (int k = 0; k < 3; ++k) {
      wc += wb.cross(axes[k]) * fd[k];  // a_k' f_k', a_k turning with the frames before it
      wb += axes[k] * fd[k];
      B.block<3, 1>(3, nt + k) = axes[k];
    }
    child.R = after_x * RotZ(f[2]);
    margin = std::min(margin, std::abs(std::sin(f[1])));
  } else if (g.rotation == SpatialJoint::Rotation::kAxis) {
    const Eigen::Matrix3d base = Ra * g.euler_chart;
    const Eigen::Vector3d axis = base.col(2);
    wc += wb.cross(axis) * qv[nt];
    wb += axis * qv[nt];
    B.block<3, 1>(3, nt) = axis;
    child.R = base * RotZ(q[nt]) * g.post;
  } else if (g.rotation == SpatialJoint::Rotation::kLocked) {
    child.R = Ra * g.euler_chart;
  } else {
    child.R = Eigen::Matrix3d::Identity();
    wb.setZero();
  }
  child.w = wb;

  // Position and velocity of the child's reference point.
  const Eigen::Vector3d ub = child_rigid ? Eigen::Vector3d(child.R * g.s_b) : g.s_b;
  child.x = xa + arm + tau - ub;
  child.v =
      va + wa.cross(arm) + slide_v + tau_v - (child_rigid ? wb.cross(ub) : Eigen::Vector3d::Zero());

  // (9): translation rows.
  Eigen::Vector3d ct = wa.cross(wa.cross(arm)) + 2.0 * wa.cross(slide_v) + tau_c;
  if (child_rigid) {
    ct += ub.cross(wc) - wb.cross(wb.cross(ub));  // -w_b' x u_b, velocity terms
    // -w_b' x u_b = [u_b]x w_b': the rotation coordinates' columns.
    B.block(0, nt, 3, n - nt) = Skew(ub) * B.block(3, nt, 3, n - nt);
    c.tail<3>() = wc;
  }
  c.head<3>() = ct;
  if (da > 0) {
    A.block<3, 3>(0, 0).setIdentity();
    if (da == 6) {
      // w_a' x arm = -[arm]x w_a'; the child's w_b' carries w_a' when it turns with it.
      A.block<3, 3>(0, 3) = -Skew(arm);
      if (child_rigid) {
        A.block<3, 3>(0, 3) += Skew(ub);
        A.block<3, 3>(3, 3).setIdentity();
      }
    }
  }
  return margin;
}

void SpatialJointCoordinates(const SpatialJoint& g, const SpatialFrame* parent, bool parent_rigid,
                             bool child_rigid, const SpatialFrame& child, double* q, double* qv) {
  Eigen::Vector3d xa, va, wa, ua;
  Eigen::Matrix3d Ra;
  ParentTerms(g, parent, parent_rigid, xa, va, wa, Ra, ua);
  const Eigen::Vector3d ub = child_rigid ? Eigen::Vector3d(child.R * g.s_b) : g.s_b;
  const Eigen::Vector3d wb = child_rigid ? child.w : Eigen::Vector3d::Zero();
  const Eigen::Vector3d r = child.x + ub - xa - ua;                       // tau
  const Eigen::Vector3d rv = child.v + wb.cross(ub) - va - wa.cross(ua);  // tau'
  const int nt = g.translation_count();
  if (g.translation == SpatialJoint::Translation::kWorld) {
    for (int i = 0; i < 3; ++i) {
      q[i] = r(i);
      qv[i] = rv(i);
    }
  } else if (g.translation == SpatialJoint::Translation::kParentAxes) {
    // r = sum_j w_j t_j (a stated pose off the joint: its projection), r' = w_a x r +
    // sum_j w_j t_j' with orthonormal w_j.
    for (int j = 0; j < g.num_axes; ++j) {
      const Eigen::Vector3d w = Ra * g.axes.col(j);
      q[j] = w.dot(r);
      qv[j] = w.dot(rv - wa.cross(r));
    }
  } else if (g.translation == SpatialJoint::Translation::kDistance) {
    const Eigen::Vector3d e = g.link_chart.transpose() * r / g.length;
    q[1] = std::atan2(-e.z(), std::hypot(e.x(), e.y()));
    q[0] = Unwrap(std::atan2(e.y(), e.x()), q[0]);
    const LinkDirection dir = Direction(q[0], q[1]);
    const Eigen::Vector3d rate = g.link_chart.transpose() * rv / g.length;
    const double cb = std::cos(q[1]);
    qv[0] = dir.ea.dot(rate) / (cb * cb);  // |e_a| = cos b, e_a . e_b = 0, |e_b| = 1
    qv[1] = dir.eb.dot(rate);
  }
  if (g.rotation == SpatialJoint::Rotation::kEuler) {
    double* f = q + nt;
    double* fd = qv + nt;
    const Eigen::Matrix3d m = g.euler_chart.transpose() * Relative(parent, parent_rigid, child);
    // Rz(f0) Rx(f1) Rz(f2): third column (s0 s1, -c0 s1, c1), third row (s1 s2, s1 c2, c1).
    f[1] = std::acos(std::clamp(m(2, 2), -1.0, 1.0));
    f[0] = Unwrap(std::atan2(m(0, 2), -m(1, 2)), f[0]);
    f[2] = Unwrap(std::atan2(m(2, 0), m(2, 1)), f[2]);
    const Eigen::Matrix3d base = Ra * g.euler_chart;
    const Eigen::Matrix3d after_z = base * RotZ(f[0]);
    Eigen::Matrix3d axes;
    axes << base.col(2), after_z.col(0), (after_z * RotX(f[1])).col(2);
    const Eigen::Vector3d rates = axes.partialPivLu().solve(wb - wa);
    for (int k = 0; k < 3; ++k) fd[k] = rates(k);
  } else if (g.rotation == SpatialJoint::Rotation::kAxis) {
    const Eigen::Matrix3d m =
        g.euler_chart.transpose() * Relative(parent, parent_rigid, child) * g.post.transpose();
    q[nt] = Unwrap(std::atan2(m(1, 0), m(0, 0)), q[nt]);  // m = Rz(phi) on the joint
    qv[nt] = (Ra * g.euler_chart.col(2)).dot(wb - wa);
  }
}

void ChooseSpatialCharts(SpatialJoint& g, const SpatialFrame* parent, bool parent_rigid,
                         const SpatialFrame& child, const Eigen::Vector3d& gravity) {
  if (g.translation == SpatialJoint::Translation::kDistance) {
    Eigen::Vector3d xa, va, wa, ua;
    Eigen::Matrix3d Ra;
    ParentTerms(g, parent, parent_rigid, xa, va, wa, Ra, ua);
    const bool rigid = g.rotation != SpatialJoint::Rotation::kNone;
    const Eigen::Vector3d ub = rigid ? Eigen::Vector3d(child.R * g.s_b) : g.s_b;
    const Eigen::Vector3d wb = rigid ? child.w : Eigen::Vector3d::Zero();
    const Eigen::Vector3d e = (child.x + ub - xa - ua).normalized();
    const Eigen::Vector3d rate = child.v + wb.cross(ub) - va - wa.cross(ua);
    // G = [e, n x e, n]: the stated link direction at alpha = beta = 0 and the poles at
    // +-n, normal to the plane the link starts moving in (or, from rest, to the plane of
    // the link and gravity), so that the motion starts along the equator.
    Eigen::Vector3d n = e.cross(rate);
    if (!(n.norm() > 1e-9 * rate.norm()) || n.isZero()) n = e.cross(gravity);
    if (n.isZero() || !(n.norm() > 1e-9 * gravity.norm())) {
      Eigen::Index k = 0;
      e.cwiseAbs().minCoeff(&k);
      n = e.cross(Eigen::Vector3d::Unit(k));
    }
    n.normalize();
    g.link_chart.col(0) = e;
    g.link_chart.col(1) = n.cross(e);
    g.link_chart.col(2) = n;
  }
  if (g.rotation == SpatialJoint::Rotation::kAxis) {
    // C e_z = axis_a, D = C^T R_rel: R_b = R_a C Rz(phi) D turns the stated relative pose
    // about the parent's axis by phi.
    g.euler_chart =
        Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), g.axis_a).toRotationMatrix();
    g.post = g.euler_chart.transpose() * Relative(parent, parent_rigid, child);
  } else if (g.rotation == SpatialJoint::Rotation::kLocked) {
    g.euler_chart = Relative(parent, parent_rigid, child);
  }
  if (g.rotation == SpatialJoint::Rotation::kEuler) {
    // The precession-nutation-spin angles about the parent's z axis (a top's natural
    // chart) when the stated nutation is within [30, 150] degrees; else C = R_rel Rx(-pi/2),
    // which puts the stated pose at (0, pi/2, 0), 90 degrees from the singular set.
    const Eigen::Matrix3d rel = Relative(parent, parent_rigid, child);
    g.euler_chart.setIdentity();
    if (std::abs(rel(2, 2)) > std::cos(M_PI / 6.0)) g.euler_chart = rel * RotX(-M_PI / 2.0);
  }
}

}  // namespace mbb
