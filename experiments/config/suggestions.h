#pragma once
// Did-you-mean for everything an experiment file names: keys, tables, values with
// choices and component names. One rule for all, so that every message suggests alike.
#include <optional>
#include <string>
#include <vector>

namespace ablate::experiments {

// The name a misspelled `word` most likely meant among `candidates`, if one is likely:
// a typo (nn::did_you_mean: a few letters changed), another case ("RMS"), the name
// with a suffix such as norm or ing ("rmsnorm", "layer_norm", "prenorm", "training" →
// "rms", "layer", "pre", "train"), its beginning ("cos" → "cosine"), or a name only
// one candidate's description mentions ("rope" → "rotary", described as RoPE). `descriptions`, when
// given, are the candidates' own, in the same order.
std::optional<std::string> closest_name(const std::string& word,
                                        const std::vector<std::string>& candidates,
                                        const std::vector<std::string>& descriptions = {});

// How a message lists the names allowed where an unknown one was written ("unknown
// key; allowed here: a b"). Messages that differ only in that list (the options of
// each swept kind) are one mistake to the grid (trial_grid.cpp).
inline constexpr const char* kAllowedHere = "; allowed here:";

// A key ablate writes into a resolved config.toml itself (`plugins_sha256`, a data
// file's `path_sha256`): read when present, never offered as an allowed key.
bool is_internal_key(const std::string& key);

// `keys` without the internal ones, sorted: the keys a message lists as allowed.
std::vector<std::string> listed_keys(std::vector<std::string> keys);

}  // namespace ablate::experiments
