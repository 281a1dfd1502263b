// The mechanical DAE in redundant coordinates: the contract every general method consumes
// (docs/design.md, "core contracts"; symbols as in docs/notation.md).
//
//   q' = v,   M(q) v' = Q(t, q, v) - Phi_q(t, q)^T lambda,   Phi(t, q) = 0          (1)
//
// with n coordinates q and m holonomic constraints Phi. The hidden constraints are
// Phi_q v + Phi_t = 0 and Phi_q v' = gamma with
//   gamma = -(Phi_q v)_q v - 2 Phi_qt v - Phi_tt.                                     (2)
// A problem with m = 0 is an ODE in minimal coordinates.
//
// The object is read-only after construction; every scratch buffer lives in a
// DaeWorkspace the caller creates once with MakeWorkspace(), so one problem can be
// integrated on several threads at once and no Calc* call allocates.
#pragma once

#include <Eigen/Dense>
#include <memory>

#include "problems/invariant.h"
#include "problems/jacobian_compression.h"
#include "problems/tangent_pattern.h"

namespace mbb {

using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;
using VectorRef = Eigen::Ref<Eigen::VectorXd>;
using MatrixRef = Eigen::Ref<Eigen::MatrixXd>;
using ConstVectorRef = const Eigen::Ref<const Eigen::VectorXd>&;

/// Scratch buffers owned by the caller; each DAE type defines its own.
class DaeWorkspace {
 public:
  virtual ~DaeWorkspace() = default;
};

class MechanicalDae {
 public:
  virtual ~MechanicalDae() = default;

  int num_coordinates() const { return n_; }  // n
  int num_constraints() const { return m_; }  // m

  virtual std::unique_ptr<DaeWorkspace> MakeWorkspace() const = 0;

  // Constraint level. Outputs are sized by the caller: phi (m), Phi_q (m x n).
  virtual void CalcPhi(DaeWorkspace& ws, double t, ConstVectorRef q, VectorRef phi) const = 0;
  virtual void CalcPhiQ(DaeWorkspace& ws, double t, ConstVectorRef q, MatrixRef phi_q) const = 0;
  virtual void CalcPhiT(DaeWorkspace& ws, double t, ConstVectorRef q, VectorRef phi_t) const = 0;
  /// Velocity-level residual Phi_q v + Phi_t (m).
  virtual void CalcVelocityResidual(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                                    VectorRef out) const = 0;
  /// gamma of eq. (2) (m).
  virtual void CalcGamma(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                         VectorRef gamma) const = 0;
  /// d gamma / dq at (t, q, v) (m x n) where the equations give it by hand (true; the
  /// planar formulation), else false with `out` untouched: a caller that needs it then
  /// differentiates gamma numerically.
  virtual bool CalcGammaJacobian(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                                 ConstVectorRef /*v*/, MatrixRef /*out*/) const {
    return false;
  }
  /// The same at the entries of constraint_jacobian_pattern() (group by group), where
  /// has_phi_q_entries() and the equations give it by hand.
  virtual bool CalcGammaJacobianEntries(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                                        ConstVectorRef /*v*/, double* /*values*/) const {
    return false;
  }
  /// d/dt Phi_q along the motion (t + s, q + v s): Phi_qq v + Phi_qt (m x n).
  virtual void CalcPhiQDot(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                           MatrixRef phi_q_dot) const = 0;
  /// d(Phi_q^T lambda)/dq (n x n): the stiffness of the reaction forces.
  virtual void CalcReactionStiffness(DaeWorkspace& ws, double t, ConstVectorRef q,
                                     ConstVectorRef lambda, MatrixRef k) const = 0;

  // Dynamics. M (n x n), Q (n) = applied + conservative + velocity-dependent forces.
  virtual void CalcMassMatrix(DaeWorkspace& ws, ConstVectorRef q, MatrixRef mass) const = 0;
  virtual void CalcForces(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                          VectorRef forces) const = 0;
  /// dQ/dq and dQ/dv (n x n each).
  virtual void CalcForceJacobians(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                                  MatrixRef dq, MatrixRef dv) const = 0;
  /// d(M(q) a)/dq (n x n); zero for a constant mass matrix.
  virtual void CalcMassTimesAccelerationJacobian(DaeWorkspace& ws, ConstVectorRef q,
                                                 ConstVectorRef a, MatrixRef out) const = 0;

  // Energy. T + V, and the power of the non-conservative applied forces (J/s), so that
  // E(t) - E(0) - integral(power) is the energy balance residual of a scleronomic system.
  virtual double CalcEnergy(DaeWorkspace& ws, double t, ConstVectorRef q,
                            ConstVectorRef v) const = 0;
  virtual double CalcAppliedPower(DaeWorkspace& ws, double t, ConstVectorRef q,
                                  ConstVectorRef v) const = 0;

  /// Linear momentum and angular momentum about the global origin (3-vectors; a planar
  /// formulation reports z components of angular and zero linear z). Returns false when the
  /// DAE has no notion of momentum (e.g. a problem in relative angles); the outputs are
  /// then left untouched.
  virtual bool CalcMomenta(DaeWorkspace& /*ws*/, ConstVectorRef /*q*/, ConstVectorRef /*v*/,
                           Eigen::Vector3d& /*linear*/, Eigen::Vector3d& /*angular*/) const {
    return false;
  }

  /// The potential V(t, q) and its gradient dV/dq (n), for methods that treat the
  /// conservative forces apart from the others (the discrete gradients of paper 002's
  /// energy-momentum schemes): Q = -dV/dq + the rest. Returns false when the DAE does not
  /// separate V (the outputs are then left untouched).
  virtual bool CalcPotential(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                             double& /*potential*/, VectorRef /*gradient*/) const {
    return false;
  }

  /// True if M does not depend on q (methods may then factor it once).
  virtual bool has_constant_mass_matrix() const = 0;

  /// The structural pattern of Phi_q as column groups whose columns share no row
  /// (jacobian_compression.h), or null if unknown. Anything whose row r depends on q only
  /// through the coordinates Phi_r depends on (gamma, d/dt Phi_q) can then be differenced
  /// one group at a time instead of one column at a time.
  virtual const JacobianCompression* constraint_jacobian_pattern() const { return nullptr; }

  /// True if CalcPhiQEntries is available (then constraint_jacobian_pattern() is not null).
  virtual bool has_phi_q_entries() const { return false; }
  /// The structural non-zeros of Phi_q at (t, q), in the order of the entries of
  /// constraint_jacobian_pattern() (group by group), without forming the m x n matrix. For
  /// the sparse constraint solves (problems/sparse_constraint_system.h), whose cost must not
  /// grow with m n.
  virtual void CalcPhiQEntries(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                               double* /*values*/) const {
    MBB_INVARIANT(false, "CalcPhiQEntries: this DAE does not give Phi_q's entries");
  }

  /// d/dt Phi_q along (t + s, q + v s) on Phi_q's pattern (the order of CalcPhiQEntries);
  /// only where has_phi_q_entries().
  virtual void CalcPhiQDotEntries(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                                  ConstVectorRef /*v*/, double* /*values*/) const {
    MBB_INVARIANT(false, "CalcPhiQDotEntries: this DAE does not give Phi_q's entries");
  }

  /// The pattern of the Newton matrix's n x n terms (tangent_pattern.h), or null if the DAE
  /// gives them only as dense matrices. With it, CalcMassMatrixEntries and
  /// CalcTangentStiffnessEntries fill values[k] for entry k of the pattern: an implicit
  /// method's cost on a long chain then grows with its non-zeros, not with n^2.
  virtual const TangentPattern* tangent_pattern() const { return nullptr; }
  /// M(q) on tangent_pattern().
  virtual void CalcMassMatrixEntries(DaeWorkspace& /*ws*/, ConstVectorRef /*q*/,
                                     double* /*values*/) const {
    MBB_INVARIANT(false, "CalcMassMatrixEntries: this DAE has no tangent pattern");
  }
  /// On tangent_pattern(): stiffness = d(M a)/dq + d(Phi_q^T lambda)/dq - dQ/dq and
  /// damping = -dQ/dv, the terms CalcMassTimesAccelerationJacobian, CalcReactionStiffness
  /// and CalcForceJacobians give as matrices.
  virtual void CalcTangentStiffnessEntries(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                                           ConstVectorRef /*v*/, ConstVectorRef /*a*/,
                                           ConstVectorRef /*lambda*/, double* /*stiffness*/,
                                           double* /*damping*/) const {
    MBB_INVARIANT(false, "CalcTangentStiffnessEntries: this DAE has no tangent pattern");
  }

 protected:
  MechanicalDae(int n, int m) : n_(n), m_(m) {}

 private:
  int n_;
  int m_;
};

}  // namespace mbb
