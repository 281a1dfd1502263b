// A MechanicalDae that forwards every call to another one: tests derive from it and
// override the one call they want to change (a corrupted derivative, a refused sparse
// solve). It reports the inner DAE's capabilities() whole, so an optional function it
// failed to forward would abort (MechanicalDae's default) rather than silently look
// absent; test_forwarding_dae.cc checks every capability and optional value over the
// catalogue.
#pragma once

#include <memory>
#include <utility>

#include "problems/core/mechanical_dae.h"

namespace mbb {

class ForwardingDae : public MechanicalDae {
 public:
  explicit ForwardingDae(std::shared_ptr<const MechanicalDae> inner)
      : MechanicalDae(inner->num_coordinates(), inner->num_constraints()),
        inner_(std::move(inner)) {}

  std::unique_ptr<DaeWorkspace> MakeWorkspace() const override { return inner_->MakeWorkspace(); }
  void CalcPhi(DaeWorkspace& ws, double t, ConstVectorRef q, VectorRef phi) const override {
    inner_->CalcPhi(ws, t, q, phi);
  }
  void CalcPhiQ(DaeWorkspace& ws, double t, ConstVectorRef q, MatrixRef phi_q) const override {
    inner_->CalcPhiQ(ws, t, q, phi_q);
  }
  void CalcPhiT(DaeWorkspace& ws, double t, ConstVectorRef q, VectorRef phi_t) const override {
    inner_->CalcPhiT(ws, t, q, phi_t);
  }
  void CalcVelocityResidual(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                            VectorRef out) const override {
    inner_->CalcVelocityResidual(ws, t, q, v, out);
  }
  void CalcGamma(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                 VectorRef gamma) const override {
    inner_->CalcGamma(ws, t, q, v, gamma);
  }
  void CalcPhiQDot(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                   MatrixRef out) const override {
    inner_->CalcPhiQDot(ws, t, q, v, out);
  }
  void CalcReactionStiffness(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef lambda,
                             MatrixRef k) const override {
    inner_->CalcReactionStiffness(ws, t, q, lambda, k);
  }
  void CalcMassMatrix(DaeWorkspace& ws, ConstVectorRef q, MatrixRef mass) const override {
    inner_->CalcMassMatrix(ws, q, mass);
  }
  void CalcForces(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                  VectorRef forces) const override {
    inner_->CalcForces(ws, t, q, v, forces);
  }
  void CalcForceJacobians(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                          MatrixRef dq, MatrixRef dv) const override {
    inner_->CalcForceJacobians(ws, t, q, v, dq, dv);
  }
  void CalcMassTimesAccelerationJacobian(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef a,
                                         MatrixRef out) const override {
    inner_->CalcMassTimesAccelerationJacobian(ws, q, a, out);
  }
  double CalcEnergy(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v) const override {
    return inner_->CalcEnergy(ws, t, q, v);
  }
  double CalcAppliedPower(DaeWorkspace& ws, double t, ConstVectorRef q,
                          ConstVectorRef v) const override {
    return inner_->CalcAppliedPower(ws, t, q, v);
  }

  // The optional parts (MechanicalDae::Capabilities).
  Capabilities capabilities() const override { return inner_->capabilities(); }
  const JacobianCompression& constraint_jacobian_pattern() const override {
    return inner_->constraint_jacobian_pattern();
  }
  void CalcPhiQEntries(DaeWorkspace& ws, double t, ConstVectorRef q,
                       double* values) const override {
    inner_->CalcPhiQEntries(ws, t, q, values);
  }
  void CalcPhiQDotEntries(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                          double* values) const override {
    inner_->CalcPhiQDotEntries(ws, t, q, v, values);
  }
  void CalcGammaJacobian(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                         MatrixRef out) const override {
    inner_->CalcGammaJacobian(ws, t, q, v, out);
  }
  void CalcGammaJacobianEntries(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                                double* values) const override {
    inner_->CalcGammaJacobianEntries(ws, t, q, v, values);
  }
  const TangentPattern& tangent_pattern() const override { return inner_->tangent_pattern(); }
  void CalcMassMatrixEntries(DaeWorkspace& ws, ConstVectorRef q, double* values) const override {
    inner_->CalcMassMatrixEntries(ws, q, values);
  }
  void CalcTangentStiffnessEntries(DaeWorkspace& ws, double t, ConstVectorRef q, ConstVectorRef v,
                                   ConstVectorRef a, ConstVectorRef lambda, double* stiffness,
                                   double* damping) const override {
    inner_->CalcTangentStiffnessEntries(ws, t, q, v, a, lambda, stiffness, damping);
  }
  void CalcMomenta(DaeWorkspace& ws, ConstVectorRef q, ConstVectorRef v, Eigen::Vector3d& linear,
                   Eigen::Vector3d& angular) const override {
    inner_->CalcMomenta(ws, q, v, linear, angular);
  }
  void CalcPotential(DaeWorkspace& ws, double t, ConstVectorRef q, double& potential,
                     VectorRef gradient) const override {
    inner_->CalcPotential(ws, t, q, potential, gradient);
  }

 protected:
  const MechanicalDae& inner() const { return *inner_; }

 private:
  std::shared_ptr<const MechanicalDae> inner_;
};

}  // namespace mbb
