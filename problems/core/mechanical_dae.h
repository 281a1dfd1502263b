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
#include <tuple>

#include "problems/core/invariant.h"
#include "problems/core/jacobian_compression.h"
#include "problems/core/tangent_pattern.h"

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

  // Optional parts. What a DAE provides beyond the functions above it states in one place,
  // capabilities(); each flag names the functions it makes callable, and calling one whose
  // flag is false is a programming error (it aborts). A caller asks capabilities() and takes
  // another route where a flag is false (differences instead of a hand-written derivative,
  // dense solves instead of sparse ones, no momentum metrics); a wrapper forwards the whole
  // struct (tests/forwarding_dae.h), so it cannot drop an optional function silently.
  struct Capabilities {
    /// M does not depend on q (methods may then factor it once).
    bool constant_mass_matrix = false;
    /// constraint_jacobian_pattern().
    bool constraint_pattern = false;
    /// CalcPhiQEntries and CalcPhiQDotEntries (with constraint_pattern).
    bool phi_q_entries = false;
    /// CalcGammaJacobian: d gamma / dq by hand (the planar formulation); a caller without it
    /// differentiates gamma numerically.
    bool gamma_jacobian = false;
    /// CalcGammaJacobianEntries (with phi_q_entries).
    bool gamma_jacobian_entries = false;
    /// tangent_pattern(), CalcMassMatrixEntries and CalcTangentStiffnessEntries.
    bool tangent_entries = false;
    /// CalcMomenta (not for a DAE without a notion of momentum, e.g. relative angles).
    bool momenta = false;
    /// CalcPotential.
    bool potential = false;

    /// Every flag, for comparisons (the static_assert below keeps the list complete).
    using FlagTuple = std::tuple<bool, bool, bool, bool, bool, bool, bool, bool>;
    FlagTuple Flags() const {
      return FlagTuple(constant_mass_matrix, constraint_pattern, phi_q_entries, gamma_jacobian,
                       gamma_jacobian_entries, tangent_entries, momenta, potential);
    }
    bool operator==(const Capabilities& other) const { return Flags() == other.Flags(); }
    bool operator!=(const Capabilities& other) const { return !(*this == other); }
  };
  static_assert(sizeof(Capabilities) == std::tuple_size<Capabilities::FlagTuple>::value,
                "Capabilities::Flags() must list every flag");
  virtual Capabilities capabilities() const = 0;
  /// capabilities().constant_mass_matrix, which the methods ask every step.
  bool has_constant_mass_matrix() const { return capabilities().constant_mass_matrix; }

  /// The structural pattern of Phi_q as column groups whose columns share no row
  /// (jacobian_compression.h); Capabilities::constraint_pattern. Anything whose row r
  /// depends on q only through the coordinates Phi_r depends on (gamma, d/dt Phi_q) can then
  /// be differenced one group at a time instead of one column at a time.
  virtual const JacobianCompression& constraint_jacobian_pattern() const {
    Missing("constraint_jacobian_pattern");
  }
  /// The structural non-zeros of Phi_q at (t, q), in the order of the entries of
  /// constraint_jacobian_pattern() (group by group), without forming the m x n matrix. For
  /// the sparse constraint solves (problems/core/sparse_constraint_system.h), whose cost must not
  /// grow with m n. Capabilities::phi_q_entries.
  virtual void CalcPhiQEntries(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                               double* /*values*/) const {
    Missing("CalcPhiQEntries");
  }
  /// d/dt Phi_q along (t + s, q + v s) on Phi_q's pattern (the order of CalcPhiQEntries).
  /// Capabilities::phi_q_entries.
  virtual void CalcPhiQDotEntries(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                                  ConstVectorRef /*v*/, double* /*values*/) const {
    Missing("CalcPhiQDotEntries");
  }
  /// d gamma / dq at (t, q, v) (m x n), by hand. Capabilities::gamma_jacobian.
  virtual void CalcGammaJacobian(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                                 ConstVectorRef /*v*/, MatrixRef /*out*/) const {
    Missing("CalcGammaJacobian");
  }
  /// The same at the entries of constraint_jacobian_pattern() (group by group).
  /// Capabilities::gamma_jacobian_entries.
  virtual void CalcGammaJacobianEntries(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                                        ConstVectorRef /*v*/, double* /*values*/) const {
    Missing("CalcGammaJacobianEntries");
  }

  /// The pattern of the Newton matrix's n x n terms (tangent_pattern.h): with it,
  /// CalcMassMatrixEntries and CalcTangentStiffnessEntries fill values[k] for entry k of the
  /// pattern, and an implicit method's cost on a long chain grows with its non-zeros, not
  /// with n^2. Capabilities::tangent_entries (else the terms come only as dense matrices).
  virtual const TangentPattern& tangent_pattern() const { Missing("tangent_pattern"); }
  /// M(q) on tangent_pattern(). Capabilities::tangent_entries.
  virtual void CalcMassMatrixEntries(DaeWorkspace& /*ws*/, ConstVectorRef /*q*/,
                                     double* /*values*/) const {
    Missing("CalcMassMatrixEntries");
  }
  /// On tangent_pattern(): stiffness = d(M a)/dq + d(Phi_q^T lambda)/dq - dQ/dq and
  /// damping = -dQ/dv, the terms CalcMassTimesAccelerationJacobian, CalcReactionStiffness
  /// and CalcForceJacobians give as matrices. Capabilities::tangent_entries.
  virtual void CalcTangentStiffnessEntries(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                                           ConstVectorRef /*v*/, ConstVectorRef /*a*/,
                                           ConstVectorRef /*lambda*/, double* /*stiffness*/,
                                           double* /*damping*/) const {
    Missing("CalcTangentStiffnessEntries");
  }

  /// Linear momentum and angular momentum about the global origin (3-vectors; a planar
  /// formulation reports z components of angular and zero linear z). Capabilities::momenta.
  virtual void CalcMomenta(DaeWorkspace& /*ws*/, ConstVectorRef /*q*/, ConstVectorRef /*v*/,
                           Eigen::Vector3d& /*linear*/, Eigen::Vector3d& /*angular*/) const {
    Missing("CalcMomenta");
  }
  /// The potential V(t, q) and its gradient dV/dq (n), for methods that treat the
  /// conservative forces apart from the others (the discrete gradients of paper 002's
  /// energy-momentum schemes): Q = -dV/dq + the rest. Capabilities::potential.
  virtual void CalcPotential(DaeWorkspace& /*ws*/, double /*t*/, ConstVectorRef /*q*/,
                             double& /*potential*/, VectorRef /*gradient*/) const {
    Missing("CalcPotential");
  }

 protected:
  MechanicalDae(int n, int m) : n_(n), m_(m) {}

 private:
  // An optional function called without its capability.
  [[noreturn]] static void Missing(const char* function) {
    internal::InvariantFailed("capabilities()", function, __FILE__, __LINE__);
  }

  int n_;
  int m_;
};

}  // namespace mbb
