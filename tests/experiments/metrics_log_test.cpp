// metrics.jsonl's one writer and one reader (experiments/records/metrics_log.h): what
// the runner writes reads back, and a log from elsewhere costs only its bad lines.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "experiments/records/metrics_log.h"

using namespace ablate::experiments;

namespace {

Evaluation evaluation() {
  Evaluation e;
  e.step = 500;
  e.train_loss = 1.25;
  e.loss = 0.625;
  e.lr = 1e-3;
  e.grad_norm = 3.5;
  e.seconds = 12.5;
  e.metrics = {{"sequence_accuracy", 0.875}, {"token_accuracy", 0.96875}};
  e.grad_norms = {{"encoder.layers.0", 0.5}};
  e.attention = {{"encoder.layers.0.self_attn", {1.5, 2.5}, {0.25, 0.75}}};
  return e;
}

}  // namespace

// Protects the round trip the reports depend on: every scalar under its key, the
// validation loss as val_loss, the attention telemetry per module and head.
TEST_CASE("a metrics.jsonl line reads back as it was written", "[records][unit]") {
  const MetricsLog log = parse_metrics_log(metrics_line(evaluation()) + metrics_line(evaluation()));
  REQUIRE(log.lines.size() == 2);
  CHECK(log.unreadable == 0);
  const MetricsLine& m = log.lines[0];
  CHECK(m.step == 500);
  CHECK(m.value("val_loss") == 0.625);
  CHECK(m.value("train_loss") == 1.25);
  CHECK(m.value("lr") == 1e-3);
  CHECK(m.value("seconds") == 12.5);
  CHECK(m.value("sequence_accuracy") == 0.875);
  CHECK_FALSE(m.value("step"));
  CHECK_FALSE(m.value("grad_norms"));  // per-module breakdowns are not scalar values
  REQUIRE(m.attention.size() == 1);
  CHECK(m.attention[0].module == "encoder.layers.0.self_attn");
  CHECK(m.attention[0].entropy == std::vector<double>{1.5, 2.5});
  CHECK(m.attention[0].max_prob == std::vector<double>{0.25, 0.75});
}

// Protects the reports from a log from elsewhere: a bad line is counted and skipped,
// a value that is not a finite number is left out, and nothing throws.
TEST_CASE("a damaged metrics.jsonl costs only its bad lines and values", "[records][unit]") {
  Evaluation diverged = evaluation();
  diverged.loss = std::numeric_limits<double>::quiet_NaN();  // written as null
  const std::string text = metrics_line(diverged) + "not json\n" + "[1, 2]\n" +
                           "{\"step\": \"500\", \"val_loss\": 1}\n" + "{\"val_loss\": 1}\n" +
                           "{\"step\": 7, \"val_loss\": \"low\", \"bpc\": 2.5, \"attention\": "
                           "{\"m\": {\"entropy\": [1], \"max_prob\": [1, 2]}, \"n\": 3}}\n" +
                           std::string(1000, '[') + "\n";
  const MetricsLog log = parse_metrics_log(text);
  CHECK(log.unreadable == 5);
  REQUIRE(log.lines.size() == 2);
  CHECK_FALSE(log.lines[0].value("val_loss"));  // null: not finite when written
  CHECK(log.lines[0].value("train_loss") == 1.25);
  CHECK(log.lines[1].step == 7);
  CHECK_FALSE(log.lines[1].value("val_loss"));
  CHECK(log.lines[1].value("bpc") == 2.5);
  CHECK(log.lines[1].attention.empty());  // entropy and max_prob of different lengths
}

// Protects against a log of endless lines: at most kMaxMetricsLines are read.
TEST_CASE("metrics.jsonl is read to a bounded number of lines", "[records][unit]") {
  std::string text;
  for (std::size_t i = 0; i < kMaxMetricsLines + 10; ++i) text += "{\"step\":1}\n";
  CHECK(parse_metrics_log(text).lines.size() == kMaxMetricsLines);
}
