// The parts of the report plots that need no run directory: the mask rules the
// attention heatmaps draw, the short legend labels, and gnuplot string literals.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "experiments/reports/plot_attention_mask.h"
#include "experiments/reports/plot_gnuplot.h"
#include "experiments/reports/plot_labels.h"

using namespace ablate::experiments;
using json = nlohmann::json;

// Protects the mask rules the heatmaps draw: <pad> keys are masked for every query; a
// diagonal is taken for shared QK's mask only when it is exactly 0 in every head, and a
// row whose only allowed key is itself keeps it (build_mask's "unless nothing else").
TEST_CASE("attention masks: padding, causal order and shared QK's diagonal", "[plots]") {
  json a{{"source", {"a", "b", "<pad>"}}, {"stream", {"x", "y", "z"}}};
  json padded{{"queries", "source"},
              {"keys", "source"},
              {"weights", {{{0.5, 0.5, 0}, {0.5, 0.5, 0}, {0.5, 0.5, 0}}}}};
  AttentionMask m = attention_mask(padded, a);
  CHECK(m.reasons == std::vector<std::string>{"<pad> keys"});
  CHECK(m.masked == std::vector<std::vector<bool>>{
                        {false, false, true}, {false, false, true}, {false, false, true}});
  // A causal stream with shared QK: the first query may only see itself, and keeps it.
  json stream{{"queries", "stream"},
              {"keys", "stream"},
              {"weights",
               {{{1, 0, 0}, {1, 0, 0}, {0.5, 0.5, 0}}, {{1, 0, 0}, {1, 0, 0}, {0.25, 0.75, 0}}}}};
  m = attention_mask(stream, a);
  CHECK(m.reasons == std::vector<std::string>{"causal: no key after the query",
                                              "shared QK: no attending to itself"});
  CHECK(m.masked == std::vector<std::vector<bool>>{
                        {false, true, true}, {false, true, true}, {false, false, true}});
  // One head that puts weight on the diagonal: not a mask.
  stream["weights"][1][2] = {0.25, 0.25, 0.5};
  m = attention_mask(stream, a);
  CHECK(m.reasons == std::vector<std::string>{"causal: no key after the query"});
}

// Protects readable legends: each key by its shortest dotted suffix no other swept key
// shares, and the key to them written only for keys that were shortened.
TEST_CASE("legend labels use the shortest unambiguous key suffix", "[plots]") {
  ShortKeys two({"model.attention.qk", "model.attention.scale"});
  CHECK(two.label({{"model.attention.qk", "shared"}, {"model.attention.scale", "none"}}) ==
        "qk=shared scale=none");
  CHECK(two.legend_key() == "qk = model.attention.qk, scale = model.attention.scale");
  ShortKeys clash({"model.encoder.norm.kind", "model.decoder.norm.kind", "train.lr", "lr"});
  CHECK(clash.name("model.encoder.norm.kind") == "encoder.norm.kind");
  CHECK(clash.name("model.decoder.norm.kind") == "decoder.norm.kind");
  CHECK(clash.name("train.lr") == "train.lr");
  CHECK(clash.name("lr") == "lr");
  CHECK(clash.legend_key({"train.lr", "lr"}).empty());
  CHECK(gp_lines({"one", "it's \"two\" \\"}) == "\"one\\nit's \\\"two\\\" \\\\\"");
}

TEST_CASE("gnuplot string literals keep user text literal", "[plots]") {
  CHECK(gp_string("plain") == "'plain'");
  CHECK(gp_string("it's") == "'it''s'");
  CHECK(gp_string("a\\b \"c\"") == "'a\\b \"c\"'");
  CHECK(gp_string("two\nlines") == "'two lines'");
  CHECK(gp_number(0.1) == "0.1");
  CHECK(gp_number(3) == "3");
  CHECK(gp_number(1e-7) == "1e-07");
}
