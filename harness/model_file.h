// JSON model files (docs/model-format.md): the reader turning a file under
// problems/models/ (or a user's file) into a ModelDescription, and the Problem the runner
// integrates for `mbbench run --model FILE.json`. The reading lives in model_file.cc, the
// second (and only other) translation unit besides json_io.cc that includes nlohmann/json.
#pragma once

#include <string>
#include <vector>

#include "problems/core/parameters.h"
#include "problems/core/problem.h"
#include "problems/model/model_description.h"

namespace mbb {

/// Parses and validates a model file. Throws InputError naming the file and the offending
/// key, element or joint (unknown key, missing key, wrong type, non-finite number, a joint
/// referencing a missing body, ...).
ModelDescription ReadModelFile(const std::string& path);
/// Same from text (`path` is only used in messages).
ModelDescription ParseModelText(const std::string& text, const std::string& path);

/// The parameters a model file takes with --param: `formulation`, one of the formulations
/// for the model's dimension (default: the file's "formulation", else the dimension's).
std::vector<ParameterSpec> ModelFileParameters(const ModelDescription& model);

/// ReadModelFile + BuildModelProblem + the catalogue's initial-condition check: the
/// library entry point behind `--model`. Throws InputError for a parameter not in
/// ModelFileParameters or a formulation the model's dimension does not offer.
Problem LoadModelProblem(const std::string& path, const ParameterSet& params);

}  // namespace mbb
