#pragma once
// Where the datasets of `ablate data get` live: a cache outside the repository, one
// directory per dataset, so experiment files can name a dataset's files as
// "data:<dataset>/<file>" on any machine.
#include <string>

namespace ablate::experiments {

// $ABLATE_DATA if set, else $XDG_CACHE_HOME/ablate/data, else $HOME/.cache/ablate/data.
std::string data_cache_dir();

// The prefix by which experiment files name a cached dataset's file.
constexpr const char* kDataPrefix = "data:";

// True for "data:<dataset>/<file>".
bool is_dataset_reference(const std::string& path);

// "data:cmudict/test.tsv" → <cache>/cmudict/test.tsv. Throws std::runtime_error for a
// reference without a dataset or a file, one that climbs out of the cache (".."), and
// a dataset that `ablate data get` has not fetched (naming the command that fetches it).
std::string resolve_dataset_reference(const std::string& reference);

}  // namespace ablate::experiments
