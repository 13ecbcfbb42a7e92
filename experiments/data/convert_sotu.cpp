// sotu: the npm package's data/<year>_<president>_<party>.json files (one speech each:
// year, name, party, text) into train/validation/test.txt — one document (speech) per
// line, in order of the file names (by year) — and documents.tsv listing every speech
// with its split. Split by document (hash_split.h of the file's stem, e.g.
// "1790_george_washington_n"), so no speech is cut between splits. The text is kept
// as it is, UTF-8; a tab or line break inside a speech (there are none in 0.2.3)
// would become a space, since a line is a document.
#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "experiments/data/datasets.h"
#include "experiments/data/hash_split.h"
#include "experiments/io/atomic_file.h"

namespace ablate::experiments {

Conversion convert_sotu(const std::string& unpacked, const std::string& out) {
  const std::filesystem::path dir = std::filesystem::path(unpacked) / "package" / "data";
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error(dir.string() + ": missing from the package");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error(dir.string() + ": no speeches (.json files)");
  std::map<std::string, std::string> text;
  std::string listing = "id\tyear\tpresident\tparty\tsplit\tcharacters\n";
  Conversion c;
  for (const auto& f : files) {
    nlohmann::json speech;
    try {
      speech = nlohmann::json::parse(read_file(f.string()));
    } catch (const nlohmann::json::exception& e) {
      throw std::runtime_error(f.string() + ": not JSON: " + e.what());
    }
    if (!speech.contains("text") || !speech["text"].is_string())
      throw std::runtime_error(f.string() + ": no \"text\" string");
    std::string body = speech["text"].get<std::string>();
    std::replace_if(
        body.begin(), body.end(), [](char ch) { return ch == '\n' || ch == '\r' || ch == '\t'; },
        ' ');
    const std::string id = f.stem().string();
    const std::string split = hash_split(id);
    text[split] += body + "\n";
    long long characters = 0;  // code points
    for (unsigned char ch : body) characters += (ch & 0xC0) != 0x80;
    listing += id + "\t" + std::to_string(speech.value("year", 0)) + "\t" +
               speech.value("name", std::string()) + "\t" + speech.value("party", std::string()) +
               "\t" + split + "\t" + std::to_string(characters) + "\n";
    c.counts[split + "_documents"] += 1;
    c.counts[split + "_characters"] += characters;
  }
  for (const char* split : {"train", "validation", "test"}) {
    write_file_atomically(out + "/" + split + ".txt", text[split]);
    c.files.push_back(std::string(split) + ".txt");
  }
  write_file_atomically(out + "/documents.tsv", listing);
  c.files.push_back("documents.tsv");
  return c;
}

}  // namespace ablate::experiments
