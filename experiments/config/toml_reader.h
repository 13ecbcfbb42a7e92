#pragma once
// Typed, validating reads from one TOML table. Every read records its key as known;
// finish() reports the keys nobody read as unknown, with a did-you-mean among the
// known ones. Problems are collected (not thrown) with the node's line and column.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "experiments/config/ascii_toml.h"
#include "experiments/config/config_error.h"
#include "nn/options.h"

namespace ablate::experiments {

// A parsed experiment file. TOML++ read the file's ASCII rewrite (ascii_toml.h), so
// its source positions are the rewrite's; `columns` maps them back to the file's.
struct TomlDocument {
  toml::table table;
  std::shared_ptr<const SourceColumns> columns;
};

// Where each dotted key path was written (line, column). toml++ drops source positions
// when a table is copied, and every trial is a patched copy of the file, so positions
// are indexed once from the original document (and from the sweep entries that
// override values) and looked up by key path; the tables of an array of tables are
// path[0], path[1], ... ("report.claims[1].expect").
class PositionIndex {
 public:
  PositionIndex() = default;
  explicit PositionIndex(const TomlDocument& doc) : columns_(doc.columns) { add(doc.table, ""); }
  // Records `node` (and everything inside it, all from the indexed document) at `path`.
  void add(const toml::node& node, const std::string& path);
  // The position of `path`, or of its nearest recorded ancestor; (0, 0) if none.
  std::pair<std::int64_t, std::int64_t> find(const std::string& path) const;

 private:
  std::pair<std::int64_t, std::int64_t> original(const toml::source_position& p) const;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> positions_;
  std::shared_ptr<const SourceColumns> columns_;
};

class TomlReader {
 public:
  // `path` is the table's dotted key path ("model.attention"); `table` may be null
  // (an absent optional table: every read returns its default).
  TomlReader(const toml::table* table, std::string path, std::string file,
             std::vector<ConfigProblem>& problems, const PositionIndex& positions);

  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min,
                       std::int64_t max);
  double number(const std::string& key, double fallback, double min, double max);
  bool boolean(const std::string& key, bool fallback);
  std::string string(const std::string& key, const std::string& fallback,
                     const std::vector<std::string>& choices = {});
  // A required string (a problem if missing).
  std::string required_string(const std::string& key, const std::vector<std::string>& choices = {});
  // A sub-table (or inline table); null if absent, a problem if not a table.
  const toml::table* table(const std::string& key);
  // The raw node, marked as known (null if absent).
  const toml::node* node(const std::string& key);
  // Every key of this table not read yet, as component options (TOML values →
  // nn::OptionValue), marking them known. Non-scalar values become problems.
  nn::Options remaining_as_options();

  // Problems for unread keys. Call after all reads.
  void finish();

  // A problem at `key` of this table ("" = the table itself).
  void problem(const std::string& key, const std::string& message);
  // The problem of a name not allowed at `key` (`what`: "unknown key", "unknown option
  // 'x'"): with the closest of `allowed` (suggestions.h) when one is likely, else
  // listing them, internal keys left out. A table is suggested as [path].
  void unknown_name(const std::string& key, const std::string& what,
                    const std::vector<std::string>& allowed, bool is_table = false);
  // The keys read so far.
  std::vector<std::string> known_keys() const { return {known_.begin(), known_.end()}; }
  // A sub-reader for a child table (null if absent), sharing problems and positions.
  TomlReader child(const toml::table* table, const std::string& key) const;
  std::string key_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  const toml::table* raw() const { return table_; }

 private:
  const toml::node* get(const std::string& key);
  const toml::table* table_;
  std::string path_, file_;
  std::vector<ConfigProblem>& problems_;
  const PositionIndex& positions_;
  std::set<std::string> known_;
};

// Parses an experiment file; a missing file, text that cannot be made ASCII
// (ascii_toml.h) or a TOML syntax error becomes a ConfigError with the position.
TomlDocument parse_experiment_file(const std::string& path);
// The same for text already read; `file` names it in messages.
TomlDocument parse_toml_text(const std::string& text, const std::string& file);

// The value of an integer node, nullopt for any other node. Use this, not
// node::value<std::int64_t>(): TOML++ 3.3.0 converts a float to int64 with an
// unchecked cast, undefined for 1e124 (found by the experiment-file fuzzer).
std::optional<std::int64_t> integer_value(const toml::node& node);

// A TOML scalar as an option value (nullopt for arrays and tables).
std::optional<nn::OptionValue> option_value(const toml::node& node);

}  // namespace ablate::experiments
