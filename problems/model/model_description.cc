#include "problems/model/model_description.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <set>

#include "problems/core/parameters.h"

namespace mbb {

std::string ModelDescription::Where() const {
  if (!file.empty()) return "model file " + file;
  return "model '" + title + "'";
}

namespace {

[[noreturn]] void ThrowUndefinedBody(const ModelDescription& model, const std::string& name,
                                     const std::string& referrer) {
  throw InputError(model.Where() + ": " + referrer + " references body '" + name +
                   "', which is not defined (bodies are listed under \"bodies\"; the fixed "
                   "frame is \"ground\")");
}

}  // namespace

int FindBodyIndex(const ModelDescription& model, const std::string& name,
                  const std::string& referrer) {
  if (name == "ground") return -1;
  for (size_t i = 0; i < model.bodies.size(); ++i)
    if (model.bodies[i].name == name) return static_cast<int>(i);
  ThrowUndefinedBody(model, name, referrer);
}

BodyIndex::BodyIndex(const ModelDescription& model) : model_(model) {
  index_.reserve(model.bodies.size());
  // emplace keeps the first of equal names, as the linear search finds it.
  for (size_t i = 0; i < model.bodies.size(); ++i)
    index_.emplace(model.bodies[i].name, static_cast<int>(i));
}

int BodyIndex::Find(const std::string& name, const std::string& referrer) const {
  if (name == "ground") return -1;
  const auto it = index_.find(name);
  if (it == index_.end()) ThrowUndefinedBody(model_, name, referrer);
  return it->second;
}

void PerpendicularPair(const Eigen::Vector3d& axis, Eigen::Vector3d& f, Eigen::Vector3d& g) {
  const Eigen::Vector3d a = axis.normalized();
  // Pick the coordinate axis least aligned with a to start Gram-Schmidt.
  Eigen::Vector3d seed = Eigen::Vector3d::UnitX();
  if (std::abs(a.x()) > std::abs(a.y()) || std::abs(a.x()) > std::abs(a.z())) {
    seed = std::abs(a.y()) < std::abs(a.z()) ? Eigen::Vector3d::UnitY() : Eigen::Vector3d::UnitZ();
  }
  f = (seed - seed.dot(a) * a).normalized();
  g = a.cross(f);
}

}  // namespace mbb
