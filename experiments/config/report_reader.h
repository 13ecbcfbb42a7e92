#pragma once
// Reads [report] (report_spec.h) from an experiment file and checks it against the task:
// its metric, and each claim's metric and margin.
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/axis_values.h"
#include "experiments/config/config_error.h"
#include "experiments/config/report_spec.h"
#include "experiments/config/toml_reader.h"

namespace ablate::experiments {

ReportSpec read_report_spec(const toml::table& doc, const std::string& file,
                            const PositionIndex& positions, const std::vector<AxisValues>& axes,
                            std::vector<ConfigProblem>& problems);

// "" when spec.metric is one of test_metrics(task_kind) (or empty), else the problem.
std::string check_report_metric(const ReportSpec& spec, const std::string& task_kind);

// What needs the task: each claim's metric is one the run reports (a test metric of
// `task_kind`, its per-length <m>_len<L> / per-context <m>_ctx<L> variants — which L
// the trials report is only known from their results — or a curve metric), and a
// margin where `expect` needs one.
std::vector<ConfigProblem> check_claims(const ReportSpec& spec, const std::string& task_kind,
                                        const std::string& file, const PositionIndex& positions);

}  // namespace ablate::experiments
