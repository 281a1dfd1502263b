// The configuration of a run as canonical JSON text: what makes two runs compute the same
// thing. A sweep reuses a stored result only for an equal key; a result document records it
// (result_document.h writes `configuration` and its `configuration_hash`).
#pragma once

#include <string>

#include "harness/run_record.h"
#include "harness/runner.h"

namespace mbb {

/// The configuration of a run as canonical JSON text (sorted keys): problem id, resolved
/// problem parameters, the model file's content hash, method id, resolved method parameters,
/// the settings the method used (h, rtol, atol), the horizon, whether a series was asked and
/// the number of timed repeats. `described` is DescribeRun's record of the resolved spec.
/// Two runs with equal keys compute the same thing: what a sweep may reuse.
std::string ConfigurationKey(const RunRecord& described, const RunSpec& spec);
/// A stored configuration key with its method parameters under their current names
/// (methods/method.h WithCurrentParameterNames): what a resume compares, so that a result
/// written before a parameter's rename is still kept. A key it cannot read comes back as is.
std::string WithCurrentParameterNames(const std::string& key);
/// The keys whose values differ between two configuration keys ("settings.h: 0.004 -> 0.001"),
/// for the message that says why a stored result is not reused.
std::string DescribeConfigurationChange(const std::string& stored, const std::string& wanted);

}  // namespace mbb
