// JSON model-file reader (format: docs/model-format.md). Strict: every object's keys are
// checked against the keys its type accepts, every number must be a finite JSON number,
// vectors must have the model's dimension. All errors are InputError naming the file and
// the JSON path of the offending key ("joints[2] 'B' key 'axis_a'").
// This file and json_io.cc are the only ones that include nlohmann/json.
#include "harness/model_file.h"

#include "harness/file_names.h"

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "problems/core/consistent_initial_conditions.h"
#include "problems/model/formulation_registry.h"
#include "problems/model/model_problem.h"
#include "problems/model/model_validation.h"

namespace mbb {
namespace {

using nlohmann::json;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void Fail(const std::string& where, const std::string& why) const {
    throw InputError("model file " + file_ + ": " + where + ": " + why);
  }

  void CheckKeys(const json& object, const std::string& where,
                 const std::set<std::string>& allowed) const {
    if (!object.is_object()) Fail(where, "must be a JSON object");
    for (const auto& item : object.items()) {
      if (allowed.count(item.key())) continue;
      std::string list;
      for (const auto& k : allowed) list += (list.empty() ? "" : ", ") + k;
      Fail(where, "unknown key '" + item.key() + "' (allowed: " + list + ")");
    }
  }

  const json& Required(const json& object, const std::string& key, const std::string& where) const {
    if (!object.contains(key)) Fail(where, "missing key '" + key + "'");
    return object.at(key);
  }

  double Number(const json& value, const std::string& where) const {
    if (!value.is_number()) Fail(where, "must be a number, got " + value.dump());
    const double x = value.get<double>();
    if (!std::isfinite(x)) Fail(where, "must be finite");
    return x;
  }
  double Number(const json& object, const std::string& key, const std::string& where,
                double fallback) const {
    if (!object.contains(key)) return fallback;
    return Number(object.at(key), where + " key '" + key + "'");
  }
  double RequiredNumber(const json& object, const std::string& key,
                        const std::string& where) const {
    return Number(Required(object, key, where), where + " key '" + key + "'");
  }

  std::string String(const json& object, const std::string& key, const std::string& where,
                     const std::string& fallback, bool required = false) const {
    if (!object.contains(key)) {
      if (required) Fail(where, "missing key '" + key + "'");
      return fallback;
    }
    const json& v = object.at(key);
    if (!v.is_string()) Fail(where + " key '" + key + "'", "must be a string");
    return v.get<std::string>();
  }

  // A vector of `size` numbers (size 2 or 3 as the model's dimension, 4 for quaternions).
  Eigen::Vector3d Vec(const json& object, const std::string& key, const std::string& where,
                      int size, const Eigen::Vector3d& fallback = Eigen::Vector3d::Zero()) const {
    if (!object.contains(key)) return fallback;
    const std::string w = where + " key '" + key + "'";
    const json& v = object.at(key);
    if (!v.is_array() || static_cast<int>(v.size()) != size)
      Fail(w, "must be an array of " + std::to_string(size) + " numbers");
    Eigen::Vector3d out = Eigen::Vector3d::Zero();
    for (int i = 0; i < size; ++i) out[i] = Number(v[i], w + "[" + std::to_string(i) + "]");
    return out;
  }

  std::vector<std::string> Strings(const json& object, const std::string& key,
                                   const std::string& where) const {
    std::vector<std::string> out;
    if (!object.contains(key)) return out;
    const json& v = object.at(key);
    const std::string w = where + " key '" + key + "'";
    if (!v.is_array()) Fail(w, "must be an array of strings");
    for (const auto& s : v) {
      if (!s.is_string()) Fail(w, "must be an array of strings");
      out.push_back(s.get<std::string>());
    }
    return out;
  }

  TimeLaw Law(const json& object, const std::string& key, const std::string& where,
              double constant_default) const {
    TimeLaw law;
    law.offset = constant_default;
    if (!object.contains(key)) return law;
    const json& v = object.at(key);
    const std::string w = where + " key '" + key + "'";
    if (v.is_number()) {
      law.offset = Number(v, w);
      return law;
    }
    CheckKeys(v, w, {"offset", "rate", "amplitude", "frequency", "phase"});
    law.offset = Number(v, "offset", w, 0.0);
    law.rate = Number(v, "rate", w, 0.0);
    law.amplitude = Number(v, "amplitude", w, 0.0);
    law.frequency = Number(v, "frequency", w, 0.0);
    law.phase = Number(v, "phase", w, 0.0);
    return law;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

template <class Kind>
Kind Choice(const Reader& r, const std::map<std::string, Kind>& kinds, const std::string& value,
            const std::string& where) {
  const auto it = kinds.find(value);
  if (it != kinds.end()) return it->second;
  std::string list;
  for (const auto& [k, v] : kinds) list += (list.empty() ? "" : ", ") + k;
  r.Fail(where + " key 'type'", "unknown value '" + value + "' (allowed: " + list + ")");
}

std::string Label(const char* array, size_t i, const std::string& name) {
  return std::string(array) + "[" + std::to_string(i) + "]" +
         (name.empty() ? "" : " '" + name + "'");
}

const json& Array(const Reader& r, const json& root, const std::string& key, bool required) {
  static const json kEmpty = json::array();
  if (!root.contains(key)) {
    if (required) r.Fail("top level", "missing key '" + key + "'");
    return kEmpty;
  }
  if (!root.at(key).is_array()) r.Fail("key '" + key + "'", "must be an array");
  return root.at(key);
}

BodyDescription ReadBody(const Reader& r, const json& j, const std::string& w, int dim) {
  r.CheckKeys(j, w,
              {"name", "type", "mass", "inertia", "position", "angle", "orientation", "velocity",
               "angular_velocity", "hold", "estimate"});
  BodyDescription b;
  b.name = r.String(j, "name", w, "", true);
  b.kind = Choice<BodyKind>(r, {{"rigid", BodyKind::kRigid}, {"point_mass", BodyKind::kPointMass}},
                            r.String(j, "type", w, "rigid"), w);
  b.mass = r.RequiredNumber(j, "mass", w);
  if (b.kind == BodyKind::kRigid) {
    const json& inertia = r.Required(j, "inertia", w);
    const std::string wi = w + " key 'inertia'";
    if (dim == 2) {
      b.inertia(0, 0) = r.Number(inertia, wi);
    } else if (inertia.is_array() && inertia.size() == 3 && inertia[0].is_number()) {
      b.inertia = r.Vec(j, "inertia", w, 3).asDiagonal();
    } else if (inertia.is_array() && inertia.size() == 3) {
      for (int row = 0; row < 3; ++row) {
        if (!inertia[row].is_array() || inertia[row].size() != 3)
          r.Fail(wi, "must be [Ixx, Iyy, Izz] or a 3 x 3 array");
        for (int c = 0; c < 3; ++c)
          b.inertia(row, c) = r.Number(
              inertia[row][c], wi + "[" + std::to_string(row) + "][" + std::to_string(c) + "]");
      }
    } else {
      r.Fail(wi, "must be [Ixx, Iyy, Izz] or a 3 x 3 array");
    }
  } else if (j.contains("inertia") || j.contains("angle") || j.contains("orientation") ||
             j.contains("angular_velocity")) {
    r.Fail(w, "a point_mass takes no inertia, angle, orientation or angular_velocity");
  }
  b.position = r.Vec(j, "position", w, dim);
  b.velocity = r.Vec(j, "velocity", w, dim);
  if (dim == 2) {
    if (j.contains("orientation")) r.Fail(w + " key 'orientation'", "planar bodies use 'angle'");
    b.angle = r.Number(j, "angle", w, 0.0);
    b.angular_velocity.z() = r.Number(j, "angular_velocity", w, 0.0);
  } else {
    if (j.contains("angle")) r.Fail(w + " key 'angle'", "spatial bodies use 'orientation'");
    if (j.contains("orientation")) {
      const json& o = j.at("orientation");
      const std::string wo = w + " key 'orientation'";
      if (!o.is_array() || o.size() != 4) r.Fail(wo, "must be a quaternion [w, x, y, z]");
      for (int i = 0; i < 4; ++i)
        b.orientation[i] = r.Number(o[i], wo + "[" + std::to_string(i) + "]");
    }
    b.angular_velocity = r.Vec(j, "angular_velocity", w, 3);
  }
  b.hold = r.Strings(j, "hold", w);
  for (const auto& e : r.Strings(j, "estimate", w)) {
    if (e == "pose")
      b.pose_is_estimate = true;
    else if (e == "twist")
      b.twist_is_estimate = true;
    else
      r.Fail(w + " key 'estimate'", "unknown value '" + e + "' (allowed: pose, twist)");
  }
  return b;
}

JointDescription ReadJoint(const Reader& r, const json& j, const std::string& w, int dim) {
  r.CheckKeys(
      j, w,
      {"name", "type", "body_a", "body_b", "point_a", "point_b", "axis_a", "axis_b", "length"});
  JointDescription d;
  d.name = r.String(j, "name", w, "", true);
  d.kind = Choice<JointKind>(r,
                             {{"revolute", JointKind::kRevolute},
                              {"prismatic", JointKind::kPrismatic},
                              {"spherical", JointKind::kSpherical},
                              {"universal", JointKind::kUniversal},
                              {"cylindrical", JointKind::kCylindrical},
                              {"planar", JointKind::kPlanar},
                              {"fixed", JointKind::kFixed},
                              {"distance", JointKind::kDistance},
                              {"point_on_line", JointKind::kPointOnLine}},
                             r.String(j, "type", w, "", true), w);
  d.body_a = r.String(j, "body_a", w, "", true);
  d.body_b = r.String(j, "body_b", w, "", true);
  d.point_a = r.Vec(j, "point_a", w, dim);
  d.point_b = r.Vec(j, "point_b", w, dim);
  const Eigen::Vector3d default_axis =
      dim == 2 ? Eigen::Vector3d::UnitX() : Eigen::Vector3d::UnitZ();
  d.axis_a = r.Vec(j, "axis_a", w, dim, default_axis);
  d.axis_b = r.Vec(j, "axis_b", w, dim, d.axis_a);
  d.length = r.Number(j, "length", w, 0.0);
  return d;
}

ForceDescription ReadForce(const Reader& r, const json& j, const std::string& w, int dim) {
  const std::string type = r.String(j, "type", w, "", true);
  ForceDescription f;
  f.name = r.String(j, "name", w, type);
  f.kind = Choice<ForceKind>(r,
                             {{"gravity", ForceKind::kGravity},
                              {"spring_damper", ForceKind::kSpringDamper},
                              {"torsional_spring_damper", ForceKind::kTorsionalSpring},
                              {"force", ForceKind::kForce},
                              {"torque", ForceKind::kTorque}},
                             type, w);
  switch (f.kind) {
    case ForceKind::kGravity:
      r.CheckKeys(j, w, {"name", "type", "vector"});
      r.Required(j, "vector", w);
      f.vector = r.Vec(j, "vector", w, dim);
      break;
    case ForceKind::kSpringDamper:
      r.CheckKeys(j, w,
                  {"name", "type", "body_a", "body_b", "point_a", "point_b", "stiffness", "damping",
                   "rest_length"});
      f.body_a = r.String(j, "body_a", w, "", true);
      f.body_b = r.String(j, "body_b", w, "", true);
      f.point_a = r.Vec(j, "point_a", w, dim);
      f.point_b = r.Vec(j, "point_b", w, dim);
      f.stiffness = r.Number(j, "stiffness", w, 0.0);
      f.damping = r.Number(j, "damping", w, 0.0);
      f.rest_length = r.Number(j, "rest_length", w, 0.0);
      break;
    case ForceKind::kTorsionalSpring:
      r.CheckKeys(j, w, {"name", "type", "body_a", "body_b", "stiffness", "damping", "rest_angle"});
      f.body_a = r.String(j, "body_a", w, "", true);
      f.body_b = r.String(j, "body_b", w, "", true);
      f.stiffness = r.Number(j, "stiffness", w, 0.0);
      f.damping = r.Number(j, "damping", w, 0.0);
      f.rest_length = r.Number(j, "rest_angle", w, 0.0);
      break;
    case ForceKind::kForce:
      r.CheckKeys(j, w, {"name", "type", "body", "point", "vector", "law"});
      f.body_a = r.String(j, "body", w, "", true);
      f.point_a = r.Vec(j, "point", w, dim);
      r.Required(j, "vector", w);
      f.vector = r.Vec(j, "vector", w, dim);
      f.law = r.Law(j, "law", w, 1.0);
      break;
    case ForceKind::kTorque:
      r.CheckKeys(j, w, {"name", "type", "body", "torque", "law"});
      f.body_a = r.String(j, "body", w, "", true);
      if (dim == 2)
        f.vector.z() = r.RequiredNumber(j, "torque", w);
      else {
        r.Required(j, "torque", w);
        f.vector = r.Vec(j, "torque", w, 3);
      }
      f.law = r.Law(j, "law", w, 1.0);
      break;
  }
  return f;
}

DriverDescription ReadDriver(const Reader& r, const json& j, const std::string& w) {
  r.CheckKeys(j, w, {"name", "type", "body_a", "body_b", "body", "coordinate", "law"});
  DriverDescription d;
  d.name = r.String(j, "name", w, "", true);
  d.kind = Choice<DriverKind>(
      r, {{"relative_angle", DriverKind::kRelativeAngle}, {"coordinate", DriverKind::kCoordinate}},
      r.String(j, "type", w, "", true), w);
  if (d.kind == DriverKind::kRelativeAngle) {
    if (j.contains("body") || j.contains("coordinate"))
      r.Fail(w, "relative_angle takes body_a and body_b");
    d.body_a = r.String(j, "body_a", w, "", true);
    d.body_b = r.String(j, "body_b", w, "", true);
  } else {
    if (j.contains("body_a") || j.contains("body_b")) r.Fail(w, "coordinate takes body");
    d.body_a = r.String(j, "body", w, "", true);
    d.coordinate = r.String(j, "coordinate", w, "", true);
  }
  if (!j.contains("law")) r.Fail(w, "missing key 'law'");
  d.law = r.Law(j, "law", w, 0.0);
  return d;
}

OutputDescription ReadOutput(const Reader& r, const json& j, const std::string& w, int dim) {
  r.CheckKeys(j, w, {"name", "type", "body", "point", "axis", "reference_body", "offset", "scale"});
  OutputDescription o;
  o.name = r.String(j, "name", w, "", true);
  o.kind = Choice<OutputKind>(r,
                              {{"x", OutputKind::kPointX},
                               {"y", OutputKind::kPointY},
                               {"z", OutputKind::kPointZ},
                               {"vx", OutputKind::kPointVX},
                               {"vy", OutputKind::kPointVY},
                               {"vz", OutputKind::kPointVZ},
                               {"angle", OutputKind::kAngle}},
                              r.String(j, "type", w, "", true), w);
  o.body = r.String(j, "body", w, "", true);
  o.point = r.Vec(j, "point", w, dim);
  if (dim == 3)
    o.axis = r.Vec(j, "axis", w, 3, Eigen::Vector3d::UnitZ());
  else if (j.contains("axis"))
    r.Fail(w + " key 'axis'", "planar angles need no axis");
  o.reference_body = r.String(j, "reference_body", w, "");
  o.offset = r.Number(j, "offset", w, 0.0);
  o.scale = r.Number(j, "scale", w, 1.0);
  return o;
}

// JSON keeps the last of two equal keys in one object; a model file that says a thing
// twice is refused instead, naming the key (the parser callback sees every key in order).
json ParseRejectingDuplicates(const std::string& text, const std::string& path) {
  std::vector<std::set<std::string>> open_objects;
  std::string duplicate, last_key;
  auto callback = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key) last_key = parsed.get<std::string>();
    if (event == json::parse_event_t::object_start) {
      open_objects.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      if (!open_objects.empty()) open_objects.pop_back();
    } else if (event == json::parse_event_t::key && !open_objects.empty() &&
               !open_objects.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  json root;
  try {
    root = json::parse(text, callback);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number that overflows a double (1e999).
    throw InputError("model file " + path + ": not valid JSON" +
                     (last_key.empty() ? "" : " (after key '" + last_key + "')") + ": " + e.what());
  }
  if (!duplicate.empty())
    throw InputError("model file " + path + ": duplicate key '" + duplicate +
                     "' in one object (JSON would keep only the last)");
  return root;
}

}  // namespace

ModelDescription ParseModelText(const std::string& text, const std::string& path) {
  Reader r(path);
  const json root = ParseRejectingDuplicates(text, path);
  r.CheckKeys(root, "top level",
              {"format", "id", "title", "source", "dimension", "formulation", "end_time", "step",
               "default_methods", "conserved_momentum", "bodies", "joints", "forces", "drivers",
               "outputs"});
  const std::string format = r.String(root, "format", "top level", "mbbench.model/1");
  if (format != "mbbench.model/1")
    r.Fail("top level key 'format'",
           "unsupported format '" + format + "' (expected mbbench.model/1)");
  ModelDescription m;
  m.file = path;
  m.title = r.String(root, "title", "top level", "");
  m.source = r.String(root, "source", "top level", "user model file");
  const double dim = r.RequiredNumber(root, "dimension", "top level");
  if (dim != 2.0 && dim != 3.0) r.Fail("top level key 'dimension'", "must be 2 or 3");
  m.dimension = static_cast<int>(dim);
  m.formulation = r.String(root, "formulation", "top level", "");
  if (root.contains("formulation") && m.formulation.empty())
    r.Fail("top level key 'formulation'",
           "is empty: leave the key out for the dimension's default, or name a formulation");
  m.t_end = r.RequiredNumber(root, "end_time", "top level");
  m.h_default = r.Number(root, "step", "top level", 1e-3);
  if (root.contains("default_methods"))
    m.default_methods = r.Strings(root, "default_methods", "top level");
  m.conserved_momentum = r.Strings(root, "conserved_momentum", "top level");
  for (const auto& name : m.conserved_momentum)
    if (MomentumComponentIndex(name) < 0)
      r.Fail("top level key 'conserved_momentum'",
             "unknown component '" + name +
                 "' (allowed: linear_x, linear_y, linear_z, angular_x, angular_y, angular_z)");
  const json& bodies = Array(r, root, "bodies", true);
  for (size_t i = 0; i < bodies.size(); ++i) {
    const std::string name =
        bodies[i].is_object() && bodies[i].contains("name") && bodies[i]["name"].is_string()
            ? bodies[i]["name"].get<std::string>()
            : "";
    m.bodies.push_back(ReadBody(r, bodies[i], Label("bodies", i, name), m.dimension));
  }
  auto name_of = [](const json& j) {
    return j.is_object() && j.contains("name") && j["name"].is_string()
               ? j["name"].get<std::string>()
               : std::string();
  };
  const json& joints = Array(r, root, "joints", false);
  for (size_t i = 0; i < joints.size(); ++i)
    m.joints.push_back(
        ReadJoint(r, joints[i], Label("joints", i, name_of(joints[i])), m.dimension));
  const json& forces = Array(r, root, "forces", false);
  for (size_t i = 0; i < forces.size(); ++i)
    m.forces.push_back(
        ReadForce(r, forces[i], Label("forces", i, name_of(forces[i])), m.dimension));
  const json& drivers = Array(r, root, "drivers", false);
  for (size_t i = 0; i < drivers.size(); ++i)
    m.drivers.push_back(ReadDriver(r, drivers[i], Label("drivers", i, name_of(drivers[i]))));
  const json& outputs = Array(r, root, "outputs", false);
  for (size_t i = 0; i < outputs.size(); ++i)
    m.outputs.push_back(
        ReadOutput(r, outputs[i], Label("outputs", i, name_of(outputs[i])), m.dimension));
  m.id = r.String(root, "id", "top level", "");
  m.title = m.title.empty() ? m.id : m.title;
  ValidateModel(m);
  return m;
}

ModelDescription ReadModelFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("model file " + path + ": cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseModelText(buffer.str(), path);
}

std::vector<ParameterSpec> ModelFileParameters(const ModelDescription& model) {
  const std::string stated =
      model.formulation.empty() ? DefaultFormulation(model.dimension) : model.formulation;
  return {{"formulation", stated,
           "the coordinate set the model is compiled in (docs/model-format.md; default: the "
           "file's \"formulation\", else the dimension's default)",
           FormulationsFor(model.dimension)}};
}

Problem LoadModelProblem(const std::string& path, const ParameterSet& params) {
  // Unknown keys first (named before anything in the file is), the values once the
  // model's dimension is known.
  for (const auto& [key, value] : params.values())
    if (key != "formulation")
      throw InputError("model file " + path + ": unknown parameter '" + key +
                       "' (accepted: formulation)");
  const ModelDescription model = ReadModelFile(path);
  params.Validate(ModelFileParameters(model), "model file " + path);
  // The id: the file's "id", else its stem (results are named after it).
  std::string id = model.id;
  if (id.empty()) {
    id = path.substr(path.find_last_of('/') + 1);
    if (id.size() > 5 && id.substr(id.size() - 5) == ".json") id.resize(id.size() - 5);
  }
  RequireSafeName(id, "model file " + path + ": id (results are named after it)");
  // A formulation given with --param (or chosen for a method, runner.cc) is recorded among
  // the parameters; without one the parameters stay as before (the file's own choice).
  Problem problem = BuildModelProblem(model, id, params);
  if (params.Has("formulation"))
    problem.parameters["formulation"] = params.GetString("formulation", "");
  problem.parameters["model_file"] = path;
  CheckInitialConditions(problem);
  return problem;
}

}  // namespace mbb
