// Body coordinate blocks are read as their formulation declared them
// (BodyCoordinates::layout, problems/model/body_motion.h), never by their size: a block of 6 or 7
// coordinates whose formulation declares no layout is refused, naming the formulation and
// the body, by every reader (body motions, the reactions of paper 003, the recursive
// methods, the peers), never misread as directors or Euler parameters. Zero-mass
// admissibility is the registry entry's, and the contract headers depend on nothing in the
// model layer (problems/model/).
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "methods/method.h"
#include "problems/core/problem.h"
#include "problems/model/body_motion.h"
#include "problems/model/formulation_registry.h"
#include "problems/model/model_structure.h"
#include "problems/model/model_validation.h"

namespace mbb {
namespace {

ParameterSet Params(const std::map<std::string, std::string>& values) {
  ParameterSet p;
  for (const auto& [k, v] : values) p.Set(k, v);
  return p;
}

// The problem with its body blocks unchanged but their layouts undeclared, as a new
// coordinate set that forgot to declare them would record it, under `formulation`.
Problem WithUndeclaredLayouts(const Problem& p, const std::string& formulation) {
  auto s = std::make_shared<ModelStructure>(*p.structure);
  s->formulation = formulation;
  for (BodyCoordinates& b : s->bodies) b.layout = BodyLayout::kUndeclared;
  Problem out = p;
  out.structure = s;
  out.formulation = formulation;
  return out;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Every method that reads body blocks refuses the problem, naming the formulation. The
// reactions are asked for where the method has them.
void CheckEveryReaderRefuses(const Problem& p, const std::string& formulation,
                             const std::string& body) {
  const std::string blocks = BodyCoordinatesUnsupported(*p.structure, p.n());
  INFO(blocks);
  CHECK(Contains(blocks, "formulation '" + formulation + "'"));
  CHECK(Contains(blocks, "body '" + body + "'"));
  const std::string jacobians = BodyJacobiansUnsupported(*p.structure);
  INFO(jacobians);
  CHECK(Contains(jacobians, "formulation '" + formulation + "'"));
  const std::set<std::string> readers = {"recursive", "simbody", "mujoco",
                                         "partitioning-projective"};
  int asked = 0;
  for (const MethodEntry& e : MethodRegistry()) {
    if (!readers.count(e.name)) continue;
    ++asked;
    const ParameterSet params =
        e.name == "partitioning-projective" ? Params({{"reactions", "on"}}) : ParameterSet();
    const std::string why = e.create(params)->CheckApplicable(p);
    INFO(e.name << ": " << why);
    CHECK(Contains(why, "formulation '" + formulation + "'"));
  }
  CHECK(asked >= 2);  // the recursive methods and the partitioning are always built
}

// The quoted includes of a source file (problems/..., methods/...).
std::vector<std::string> QuotedIncludes(const std::string& path) {
  std::ifstream in(std::string(MBBENCH_SOURCE_DIR) + "/" + path);
  REQUIRE(in.good());
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    const std::string key = "#include \"";
    if (line.rfind(key, 0) != 0) continue;
    out.push_back(line.substr(key.size(), line.find('"', key.size()) - key.size()));
  }
  return out;
}

}  // namespace

TEST_CASE("an undeclared 7-coordinate body block is refused, not read as Euler parameters",
          "[body_layout]") {
  // The spin top (paper 000): one rigid body in (x, y, z, e0..e3), declared by the entry.
  const Problem p = BuildProblem("spin_top", ParameterSet());
  REQUIRE(p.structure);
  REQUIRE(p.structure->bodies.size() == 1);
  REQUIRE(p.structure->bodies[0].size == 7);
  CHECK(p.structure->bodies[0].layout == BodyLayout::kEulerParameters);
  CHECK(BodyCoordinatesUnsupported(*p.structure, p.n()).empty());
  CheckEveryReaderRefuses(WithUndeclaredLayouts(p, "mystery-seven"), "mystery-seven", "top");
}

TEST_CASE("an undeclared 6-coordinate body block is refused, not read as planar directors",
          "[body_layout]") {
  const Problem p = BuildProblem("double_four_bar", Params({{"formulation", "directors"}}));
  REQUIRE(p.structure);
  REQUIRE(!p.structure->bodies.empty());
  REQUIRE(p.structure->bodies[0].size == 6);
  CHECK(p.structure->bodies[0].layout == BodyLayout::kPlanarDirectors);
  CHECK(BodyCoordinatesUnsupported(*p.structure, p.n()).empty());
  CheckEveryReaderRefuses(WithUndeclaredLayouts(p, "mystery-six"), "mystery-six",
                          p.structure->bodies[0].name);
}

TEST_CASE("a block whose size is not its declared layout's is refused", "[body_layout]") {
  const Problem p = BuildProblem("double_four_bar", Params({{"formulation", "directors"}}));
  auto s = std::make_shared<ModelStructure>(*p.structure);
  s->bodies[0].layout = BodyLayout::kEulerParameters;  // 7 coordinates, the block has 6
  const std::string why = BodyCoordinatesUnsupported(*s, p.n());
  INFO(why);
  CHECK(Contains(why, "not the 7 of its declared layout"));
}

TEST_CASE("every catalogue problem with body blocks declares their layouts", "[body_layout]") {
  for (const ProblemEntry& e : ProblemCatalogue()) {
    const Problem p = BuildProblem(e.id, ParameterSet());
    if (!p.structure || p.structure->bodies.empty()) continue;
    INFO(e.id);
    CHECK(BodyCoordinatesUnsupported(*p.structure, p.n()) == "");
    CHECK(p.structure->joint_ends.size() == p.structure->model.joints.size());
  }
  // And in every registered formulation, on a planar and a spatial model-layer entry.
  for (const std::string& f : FormulationsFor(2)) {
    const Problem p = BuildProblem("double_four_bar", Params({{"formulation", f}}));
    INFO(f);
    if (!p.structure->bodies.empty()) CHECK(BodyCoordinatesUnsupported(*p.structure, p.n()) == "");
  }
  for (const std::string& f : FormulationsFor(3)) {
    const Problem p = BuildProblem("spin_top", Params({{"form", "model"}, {"formulation", f}}));
    INFO(f);
    if (!p.structure->bodies.empty()) CHECK(BodyCoordinatesUnsupported(*p.structure, p.n()) == "");
  }
}

TEST_CASE("zero body mass is admitted by the formulations whose entry says so", "[body_layout]") {
  const Problem p = BuildProblem("planar_pendulum", ParameterSet());
  for (const FormulationEntry& e : FormulationRegistry()) {
    if (!e.Accepts(2)) continue;
    ModelDescription model = p.structure->model;
    model.formulation = e.name;
    model.bodies[0].mass = 0.0;
    std::string why;
    try {
      ValidateModel(model);
    } catch (const InputError& error) {
      why = error.what();
    }
    INFO(e.name << ": " << why);
    CHECK(Contains(why, "mass must be > 0") == !e.admits_zero_mass);
  }
}

TEST_CASE("the contract headers include nothing from the model layer", "[body_layout]") {
  // Follows the quoted includes of problem.h and mechanical_dae.h through the source tree.
  std::vector<std::string> open = {"problems/core/problem.h", "problems/core/mechanical_dae.h"};
  std::set<std::string> seen;
  while (!open.empty()) {
    const std::string header = open.back();
    open.pop_back();
    if (!seen.insert(header).second) continue;
    INFO(header);
    CHECK(header.rfind("problems/model/", 0) != 0);
    CHECK(header != "problems/model/model_structure.h");  // holds the model description
    for (const std::string& h : QuotedIncludes(header)) open.push_back(h);
  }
  CHECK(seen.size() >= 3);
}

}  // namespace mbb
