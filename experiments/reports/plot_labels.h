#pragma once
// Legend labels of sweep points. Swept keys are long ("model.attention.qk") and a point
// names several, so a legend of full labels is mostly repeated prefixes. Each key is
// shown by its shortest dotted suffix that no other swept key ends with
// ("model.attention.qk" → "qk", "model.encoder.norm.kind" beside
// "model.decoder.norm.kind" → "encoder.norm.kind"), and a figure that shortens a key
// writes the key to its legend ("qk = model.attention.qk").
#include <map>
#include <string>
#include <vector>

namespace ablate::experiments {

class ShortKeys {
 public:
  explicit ShortKeys(std::vector<std::string> keys);
  const std::string& name(const std::string& key) const;
  // "qk=shared scale=none": the point's values of every swept key, or of `only`.
  std::string label(const std::map<std::string, std::string>& point) const;
  std::string label(const std::map<std::string, std::string>& point,
                    const std::vector<std::string>& only) const;
  // "qk = model.attention.qk, scale = model.attention.scale" over `only` (every swept
  // key when empty); "" when none of them was shortened.
  std::string legend_key(const std::vector<std::string>& only = {}) const;

 private:
  std::vector<std::string> keys_;
  std::map<std::string, std::string> names_;
};

}  // namespace ablate::experiments
