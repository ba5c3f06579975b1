// `tinyenc bench`: latency percentiles, throughput and a per-stage breakdown of the forward
// pass, swept over sequence length, batch size, threads and (for random-weight presets) PE kind.
#include <sys/resource.h>
#include <sys/stat.h>
#include <tinyenc/bench.h>
#include <tinyenc/forward.h>
#include <tinyenc/info.h>
#include <tinyenc/tinyenc.h>
#include <unistd.h>

#include <tinyenc/text.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "command.h"
#include "corpus.h"
#include "json_text.h"
#include "line_reader.h"
#include "options.h"
#include "output.h"
#include "plot/latency_figure.h"
#include "progress.h"

namespace tinyenc::cli {
namespace {

struct BenchOptions {
  std::string model;
  std::string config;
  std::string seq = "8,32,128";
  bool seq_given = false;  // an explicit --seq must fit the model; the default is clipped to it
  std::string batch = "1";
  std::string threads = "1";
  std::string pe;
  std::string isa;
  int warmup = 3;
  int repeat = 0;
  double min_time = 0.5;
  OutputOptions output;
  std::string plot;
  std::string dtype;  // comma-separated; "" is the model's default
  // --corpus: a file of texts through `run`'s corpus runner instead of the sweep.
  std::string corpus;
  int64_t max_batch_tokens = Model::EmbedOptions().max_batch_tokens;
  std::string long_texts = "error";
};

std::vector<int64_t> parse_list(const std::string& text, const std::string& option,
                                int64_t lowest = 1) {
  std::vector<int64_t> values;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    try {
      size_t used = 0;
      const long long value = std::stoll(item, &used);
      if (used != item.size() || value < lowest) throw std::exception();
      values.push_back(value);
    } catch (const std::exception&) {
      throw UsageError(option + ": " + in_quotes(item) +
                       " is not an integer >= " + std::to_string(lowest));
    }
  }
  if (values.empty()) throw UsageError(option + ": empty list");
  return values;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) items.push_back(item);
  return items;
}

// "2026-12-01 16:05 UTC": when a result was measured.
std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double rank = q * static_cast<double>(values.size() - 1);
  const size_t low = static_cast<size_t>(std::floor(rank));
  const size_t high = std::min(values.size() - 1, low + 1);
  return values[low] + (values[high] - values[low]) * (rank - static_cast<double>(low));
}

struct Row {
  std::string model, pe, dtype, matmul;
  int64_t batch, seq, threads;
  std::vector<double> seconds;
  ForwardTiming stages;  // summed over the timed runs
};

void add_stages(ForwardTiming& sum, const ForwardTiming& run) {
  sum.embeddings += run.embeddings;
  sum.qkv += run.qkv;
  sum.attention += run.attention;
  sum.output_projection += run.output_projection;
  sum.ffn += run.ffn;
  sum.norms += run.norms;
  sum.head += run.head;
}

nlohmann::json row_json(const Row& row) {
  const double runs = static_cast<double>(row.seconds.size());
  // Each number as the float32 that every output prints (JSON, CSV, the table, the plot's
  // labels), so that they all show the same value.
  const auto ms = [](double seconds) { return json_float(static_cast<float>(seconds * 1e3)); };
  const double p50 = percentile(row.seconds, 0.5);
  nlohmann::json stages = {{"embed_pe", ms(row.stages.embeddings / runs)},
                           {"qkv", ms(row.stages.qkv / runs)},
                           {"attention", ms(row.stages.attention / runs)},
                           {"output_projection", ms(row.stages.output_projection / runs)},
                           {"ffn", ms(row.stages.ffn / runs)},
                           {"norms", ms(row.stages.norms / runs)},
                           {"head", ms(row.stages.head / runs)}};
  double mean = 0.0;
  for (double s : row.seconds) mean += s / runs;
  return {{"model", row.model},
          {"pe", row.pe},
          {"dtype", row.dtype},
          {"matmul", row.matmul},
          {"batch", row.batch},
          {"seq", row.seq},
          {"threads", row.threads},
          {"runs", row.seconds.size()},
          {"p50_ms", ms(p50)},
          {"p90_ms", ms(percentile(row.seconds, 0.9))},
          {"p99_ms", ms(percentile(row.seconds, 0.99))},
          {"min_ms", ms(*std::min_element(row.seconds.begin(), row.seconds.end()))},
          {"mean_ms", ms(mean)},
          {"tokens_per_s",
           json_float(static_cast<float>(static_cast<double>(row.batch * row.seq) / p50))},
          {"stages_ms", stages},
          {"stages_sum_ms", ms(row.stages.stages() / runs)}};
}

// What a table of timings is only meaningful with: where, with what, when.
std::string markdown_preamble(const std::string& cpu, const RuntimeInfo& here,
                              const std::string& date) {
  return "tinyenc " + version() + ", oneDNN " + here.onednn_version + ", " + cpu + " (" +
         std::to_string(here.cpus) + " CPUs; " + here.cpu_features + "), PE kernels " +
         here.pe_kernels + ", " + date + "\n\n";
}

std::string markdown_header() {
  return "| model | pe | dtype | matmul | batch | seq | threads | p50 ms | p90 ms | p99 ms | "
         "min ms | tokens/s | embed+PE | QKV | attention | out proj | FFN | norms | head |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
}

std::string markdown_row(const nlohmann::json& j) {
  char buffer[512];
  const auto& s = j["stages_ms"];
  const double sum = j["stages_sum_ms"].get<double>();
  const auto share = [&](const char* stage) {
    return sum > 0 ? 100.0 * s[stage].get<double>() / sum : 0.0;
  };
  std::snprintf(
      buffer, sizeof buffer,
      "| %s | %s | %s | %s | %lld | %lld | %lld | %.3f | %.3f | %.3f | %.3f | %.0f | %.1f%% | "
      "%.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n",
      j["model"].get<std::string>().c_str(), j["pe"].get<std::string>().c_str(),
      j["dtype"].get<std::string>().c_str(), j["matmul"].get<std::string>().c_str(),
      j["batch"].get<long long>(), j["seq"].get<long long>(), j["threads"].get<long long>(),
      j["p50_ms"].get<double>(), j["p90_ms"].get<double>(), j["p99_ms"].get<double>(),
      j["min_ms"].get<double>(), j["tokens_per_s"].get<double>(), share("embed_pe"), share("qkv"),
      share("attention"), share("output_projection"), share("ffn"), share("norms"), share("head"));
  return buffer;
}

std::string csv_header() {
  return "model,pe,dtype,matmul,batch,seq,threads,runs,p50_ms,p90_ms,p99_ms,min_ms,tokens_per_s,"
         "embed_pe_ms,"
         "qkv_ms,attention_ms,output_projection_ms,ffn_ms,norms_ms,head_ms\n";
}

std::string csv_row(const nlohmann::json& j) {
  std::string row = j["model"].get<std::string>() + "," + j["pe"].get<std::string>() + "," +
                    j["dtype"].get<std::string>() + "," + j["matmul"].get<std::string>();
  for (const char* key : {"batch", "seq", "threads", "runs"}) row += "," + j[key].dump();
  const auto number = [](const nlohmann::json& value) {
    return float_text(static_cast<float>(value.get<double>()));
  };
  for (const char* key : {"p50_ms", "p90_ms", "p99_ms", "min_ms", "tokens_per_s"}) {
    row += "," + number(j[key]);
  }
  for (const char* stage :
       {"embed_pe", "qkv", "attention", "output_projection", "ffn", "norms", "head"}) {
    row += "," + number(j["stages_ms"][stage]);
  }
  return row + "\n";
}

// One line on stderr, redrawn in place, only when stderr is a terminal.
void progress(size_t done, size_t total, const std::string& what) {
  if (!::isatty(STDERR_FILENO)) return;
  const int width = 30;
  const int filled = static_cast<int>(width * done / std::max<size_t>(total, 1));
  std::fprintf(stderr, "\r[%s%s] %zu/%zu %-40s", std::string(filled, '#').c_str(),
               std::string(width - filled, ' ').c_str(), done, total, what.c_str());
  if (done == total) std::fprintf(stderr, "\r%*s\r", width + 60, "");
  std::fflush(stderr);
}

// A model to measure: a random-weight preset with a PE kind, or a model folder; in one dtype.
struct Subject {
  std::string name;  // the preset or the folder
  std::string kind;  // the preset's PE kind; empty for a folder
  std::string dtype;
  ModelInfo info;

  // The model, its encoder built for `threads`.
  Model load(int threads) const {
    Options model_options;
    model_options.dtype = dtype;
    model_options.threads = threads;
    return kind.empty() ? load_encoder(name, model_options)
                        : random_model(name, kind, model_options);
  }
};

std::vector<Subject> subjects(const BenchOptions& options) {
  std::vector<Subject> out;
  if (!options.model.empty()) {
    if (!options.config.empty()) throw UsageError("give -m MODEL_DIR or --config, not both");
    if (!options.pe.empty()) throw UsageError("--pe overrides random presets only (--config)");
    for (const std::string& dtype : parse_dtype_list(options.dtype)) {
      Subject subject{options.model, "", dtype, {}};
      subject.info = model_info(subject.load(0));
      out.push_back(std::move(subject));
    }
    return out;
  }
  const std::string preset = options.config.empty() ? "tiny" : options.config;
  const std::vector<std::string> presets = random_presets();
  if (std::find(presets.begin(), presets.end(), preset) == presets.end()) {
    throw UsageError("--config: expected tiny, mini, small or base, got '" + preset + "'");
  }
  const std::vector<std::string> kinds =
      options.pe.empty() ? std::vector<std::string>{"learned"} : split(options.pe);
  const std::vector<std::string> known = position_encoding_kinds();
  for (const std::string& kind : kinds) {
    if (std::find(known.begin(), known.end(), kind) == known.end()) {
      throw UsageError("--pe: unknown position encoding '" + kind + "'");
    }
    for (const std::string& dtype : parse_dtype_list(options.dtype)) {
      Subject subject{preset, kind, dtype, {}};
      subject.info = model_info(subject.load(0));
      out.push_back(std::move(subject));
    }
  }
  return out;
}

// The largest batch and sequence bench accepts; forward_memory() bounds their product too.
constexpr int64_t kMaxBatch = 4096;
constexpr int64_t kMaxSeq = 65536;

// The peak resident set of this process so far, in bytes: VmHWM of /proc/self/status. Not
// getrusage's ru_maxrss, which Linux carries over from the process that forked this one, so that
// a benchmark started from a large process would report that one's peak.
int64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;  // in kB
  }
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

// `bench --corpus FILE -m MODEL`: the corpus through the runner `run -i FILE` uses, outputs
// discarded; what it cost, where the time went, and how much padding the sorted batches left
// against fixed batches of 32 in input order.
int bench_corpus(const BenchOptions& options) {
  if (options.model.empty()) throw UsageError("--corpus: give the model with -m MODEL_DIR");
  if (!options.config.empty() || !options.pe.empty() || !options.plot.empty() ||
      options.seq_given) {
    throw UsageError(
        "--corpus measures a model folder on a file: --config, --pe, --seq and "
        "--plot belong to the sweep");
  }
  OutputFormat format = options.output.format();
  if (format == OutputFormat::kMarkdown) format = OutputFormat::kText;
  if (format != OutputFormat::kText && format != OutputFormat::kJson) {
    throw UsageError("--corpus writes text or JSON (-f text, -f json), not " + format_name(format));
  }
  const std::vector<int64_t> thread_list = parse_list(options.threads, "--threads", 0);
  if (thread_list.size() != 1) throw UsageError("--corpus: give one --threads count");
  const int threads = checked_threads(thread_list.front());
  const std::vector<std::string> dtypes = parse_dtype_list(options.dtype);
  if (dtypes.size() != 1) throw UsageError("--corpus: give one --dtype");
  check_range("--max-batch-tokens", options.max_batch_tokens, 1, int64_t{1} << 30);
  struct stat status;
  if (::stat(options.corpus.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) {
    throw UsageError("--corpus: " + options.corpus + " is not a readable file of texts");
  }
  ForwardLoadOptions load;
  load.options.threads = threads;
  load.options.dtype = dtypes.front();
  load.options.truncate = options.long_texts == "truncate";
  load.truncate_hint = "use --truncate to cut it or --long chunk to split it";
  Model model = load_for_forward(options.model, load);
  Model::EmbedOptions corpus;
  corpus.max_batch_tokens = options.max_batch_tokens;
  corpus.long_texts = options.long_texts;
  corpus.names = command_line_names();
  check_chunking(corpus, model.pooling() == "none");
  OutputSink sink(options.output.path);
  Progress progress(progress_default(), static_cast<uint64_t>(status.st_size));
  Model::Stream::Hooks hooks;
  hooks.progress = [&](uint64_t texts, int64_t tokens, uint64_t bytes) {
    progress.update(texts, tokens, bytes);
  };
  Model::Stream runner = model.stream(
      corpus, [](Model::Result&) {}, std::move(hooks));
  const auto start = std::chrono::steady_clock::now();
  LineReader file(options.corpus);
  add_lines(runner, file, /*interactive=*/false);
  runner.flush();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.finish();
  const StreamStats stats = stream_stats(runner);

  const auto share_of = [](int64_t computed, int64_t real) {
    return computed > 0 ? static_cast<double>(computed - real) / static_cast<double>(computed)
                        : 0.0;
  };
  const double waste = share_of(stats.computed_tokens, stats.run_tokens);
  const double waste_unsorted = share_of(stats.unsorted_32_computed_tokens, stats.run_tokens);
  const double texts = static_cast<double>(stats.texts);
  const double tokens = static_cast<double>(stats.tokens);
  const std::pair<const char*, double> stages[] = {
      {"tokenize", stats.tokenize_seconds},
      {"embed_pe", stats.stages.embeddings},
      {"qkv", stats.stages.qkv},
      {"attention", stats.stages.attention},
      {"output_projection", stats.stages.output_projection},
      {"ffn", stats.stages.ffn},
      {"norms", stats.stages.norms},
      {"head", stats.stages.head}};
  const std::string dtype = model.dtype();
  const int64_t rss = peak_rss_bytes();
  if (format == OutputFormat::kJson) {
    nlohmann::json stage_json = nlohmann::json::object();
    for (const auto& [name, time] : stages) stage_json[name] = time;
    const nlohmann::json document = {{"corpus", options.corpus},
                                     {"model", options.model},
                                     {"dtype", dtype},
                                     {"threads", threads},
                                     {"texts", stats.texts},
                                     {"tokens", stats.tokens},
                                     {"computed_tokens", stats.computed_tokens},
                                     {"padding_waste", waste},
                                     {"padding_waste_unsorted_32", waste_unsorted},
                                     {"chunks", stats.chunks},
                                     {"seconds", seconds},
                                     {"texts_per_second", seconds > 0 ? texts / seconds : 0.0},
                                     {"tokens_per_second", seconds > 0 ? tokens / seconds : 0.0},
                                     {"stages", stage_json},
                                     {"peak_rss_bytes", rss},
                                     {"max_batch_tokens", options.max_batch_tokens}};
    sink.write(json_text(document, 2) + "\n");
  } else {
    double staged = 0.0;
    for (const auto& stage : stages) staged += stage.second;
    std::string shares;
    for (const auto& [name, time] : stages) {
      char share[64];
      std::snprintf(share, sizeof share, "%s%s %.1f%%", shares.empty() ? "" : ", ", name,
                    staged > 0 ? 100.0 * time / staged : 0.0);
      shares += share;
    }
    char text[1024];
    std::snprintf(
        text, sizeof text,
        "texts      %zu (%lld chunked into "
        "%lld windows)\ntokens     %lld (%lld run, cut or chunked; %lld computed, padding "
        "included)\nspeed      %.1f texts/s, %.0f tokens/s "
        "(%.2f s)\npadding    %.1f%% of the computed tokens (fixed batches of 32 unsorted: "
        "%.1f%%)\nbudget     %lld tokens per batch\npeak RSS   %.1f MiB\n",
        stats.texts, static_cast<long long>(stats.chunked_texts),
        static_cast<long long>(stats.chunks), static_cast<long long>(stats.tokens),
        static_cast<long long>(stats.run_tokens), static_cast<long long>(stats.computed_tokens),
        seconds > 0 ? texts / seconds : 0.0, seconds > 0 ? tokens / seconds : 0.0, seconds,
        100.0 * waste, 100.0 * waste_unsorted, static_cast<long long>(options.max_batch_tokens),
        static_cast<double>(rss) / (1 << 20));
    const RuntimeInfo here = runtime_info();
    sink.write("tinyenc " + version() + ", oneDNN " + here.onednn_version + ", " + here.cpu_model +
               " (" + std::to_string(here.cpus) + " CPUs; " + here.cpu_features + "), " +
               utc_now() + "\ncorpus     " + options.corpus + "\nmodel      " + options.model +
               " (" + dtype + ", " + std::to_string(threads) +
               (threads == 1 ? " thread)\n" : " threads)\n") + text + "stages     " + shares +
               "\n");
  }
  sink.commit();
  return 0;
}

int bench(const BenchOptions& options) {
  if (!options.corpus.empty()) return bench_corpus(options);
  // Everything is checked before the first line is printed.
  std::optional<RuntimeInfo> runtime;
  if (!options.isa.empty()) {
    // The PE kernels' ISA is chosen once, from TINYENC_ISA, when they are first asked for.
    ::setenv("TINYENC_ISA", options.isa.c_str(), 1);
    try {
      runtime = runtime_info();
    } catch (const Error& e) {
      std::string message = e.what();  // "TINYENC_ISA: ..." names the variable, not the option
      if (message.rfind("TINYENC_ISA", 0) == 0) message.replace(0, 11, "--isa");
      throw UsageError(message);
    }
  }
  const RuntimeInfo here = runtime ? *runtime : runtime_info();
  const OutputFormat format = options.output.format();
  if (format == OutputFormat::kText) throw UsageError("-f text: only --corpus writes text");
  std::vector<int64_t> seqs = parse_list(options.seq, "--seq");
  const std::vector<int64_t> batches = parse_list(options.batch, "--batch-size");
  std::vector<int> thread_counts;
  for (int64_t threads : parse_list(options.threads, "--threads", 0)) {
    thread_counts.push_back(checked_threads(threads));
  }
  for (int64_t seq : seqs) check_range("--seq", seq, 1, kMaxSeq);
  for (int64_t batch : batches) check_range("--batch-size", batch, 1, kMaxBatch);
  check_range("--warmup", int64_t{options.warmup}, 0, 1000000);
  check_range("--repeat", int64_t{options.repeat}, 0, 1000000);
  check_range("--min-time", options.min_time, 0.0, 3600.0);
  if (options.plot == "-") throw UsageError("--plot: give a file name for the SVG");
  std::vector<Subject> all = subjects(options);
  const size_t dtypes = parse_dtype_list(options.dtype).size();
  if (!options.seq_given) {
    // The default sweep was chosen for the presets; a model with fewer positions gets the part of
    // it that fits, and is told so.
    int64_t fits = kMaxSeq;
    for (const Subject& subject : all) {
      if (subject.info.max_tokens > 0) fits = std::min(fits, subject.info.max_tokens);
    }
    std::vector<int64_t> kept;
    for (int64_t seq : seqs) {
      if (seq <= fits) kept.push_back(seq);
    }
    if (kept.size() < seqs.size()) {
      if (kept.empty() || kept.back() < fits) kept.push_back(fits);
      std::string list;
      for (int64_t seq : kept) list += (list.empty() ? "" : ",") + std::to_string(seq);
      std::fprintf(stderr, "tinyenc: note: %s has %lld positions: default --seq %s becomes %s\n",
                   all.front().name.c_str(), static_cast<long long>(fits), options.seq.c_str(),
                   list.c_str());
      seqs = kept;
    }
  }
  const int64_t longest = *std::max_element(seqs.begin(), seqs.end());
  const int64_t largest = *std::max_element(batches.begin(), batches.end());
  for (const Subject& subject : all) {
    if (subject.info.max_tokens > 0 && longest > subject.info.max_tokens) {
      throw UsageError("--seq " + std::to_string(longest) + ": longer than the " +
                       std::to_string(subject.info.max_tokens) + " positions of " + subject.name);
    }
    check_forward_memory(subject.info, largest, longest, "--batch-size x --seq");
  }

  OutputSink sink(options.output.path);
  // Opened before the runs, so a folder that cannot be written fails now, not after minutes.
  std::optional<OutputSink> plot;
  if (!options.plot.empty()) plot.emplace(options.plot);
  std::vector<plot::LatencyMeasurement> measurements;
  const std::string cpu = here.cpu_model;
  const std::string date = utc_now();
  nlohmann::json document;
  document["version"] = version();
  document["date"] = date;
  document["machine"] = {{"cpu", cpu},
                         {"logical_cpus", here.cpus},
                         {"cpu_features", here.cpu_features},
                         {"isa", here.pe_kernels}};
  document["onednn"] = here.onednn_version;
  document["rows"] = nlohmann::json::array();
  // Written with the first row: a run that fails before measuring anything prints nothing.
  bool header_written = false;
  const auto write_header = [&] {
    if (header_written) return;
    header_written = true;
    if (format == OutputFormat::kMarkdown)
      sink.write(markdown_preamble(cpu, here, date) + markdown_header());
    if (format == OutputFormat::kCsv) sink.write(csv_header());
  };

  const size_t total = all.size() * seqs.size() * batches.size() * thread_counts.size();
  size_t done = 0;
  std::mt19937 random(7);
  for (Subject& subject : all) {
    const ModelInfo& c = subject.info;
    const std::string& dtype = c.dtype;
    nlohmann::json config_json = {{"d_model", c.d_model},       {"heads", c.heads},
                                  {"layers", c.layers},         {"ffn_dim", c.ffn_dim},
                                  {"vocab_size", c.vocab_size}, {"pe", c.position_encoding.kind}};
    config_json["dtype"] = {{"name", dtype}, {"reason", c.dtype_reason}};
    document["models"][subject.name + "/" + config_json["pe"].get<std::string>() + "/" + dtype] =
        config_json;
    for (int threads : thread_counts) {
      Model model = subject.load(threads);
      for (int64_t batch : batches) {
        for (int64_t seq : seqs) {
          const std::string what = subject.name + " " + config_json["pe"].get<std::string>() + " " +
                                   dtype + " b" + std::to_string(batch) + " s" +
                                   std::to_string(seq) + " t" + std::to_string(threads);
          progress(done, total, what);
          std::uniform_int_distribution<int32_t> token(0, static_cast<int32_t>(c.vocab_size - 1));
          std::vector<int32_t> ids(static_cast<size_t>(batch * seq));
          for (int32_t& id : ids) id = token(random);
          for (int i = 0; i < std::max(options.warmup, 1); ++i) time_forward(model, ids, batch);
          Row row{subject.name,
                  config_json["pe"],
                  dtype,
                  matmul_implementation(model),
                  batch,
                  seq,
                  threads,
                  {},
                  {}};
          const auto start = std::chrono::steady_clock::now();
          const auto elapsed = [&] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          };
          while (options.repeat > 0 ? static_cast<int>(row.seconds.size()) < options.repeat
                                    : (row.seconds.size() < 5 || elapsed() < options.min_time)) {
            const ForwardTiming timing = time_forward(model, ids, batch);
            row.seconds.push_back(timing.seconds);
            add_stages(row.stages, timing);
          }
          const nlohmann::json j = row_json(row);
          write_header();
          if (format == OutputFormat::kMarkdown) sink.write(markdown_row(j));
          if (format == OutputFormat::kCsv) sink.write(csv_row(j));
          if (format == OutputFormat::kJsonl) sink.write(json_text(j) + "\n");
          if (format == OutputFormat::kJson) document["rows"].push_back(j);
          // The figure draws a line per PE kind; with several dtypes, per PE kind and dtype.
          const std::string line = dtypes > 1 ? row.pe + " " + dtype : row.pe;
          measurements.push_back({row.model, line, batch, seq, threads, j["p50_ms"].get<double>(),
                                  j["min_ms"].get<double>(), j["p99_ms"].get<double>()});
          sink.flush();
          ++done;
        }
      }
    }
  }
  progress(total, total, "");
  write_header();
  if (format == OutputFormat::kJson) sink.write(json_text(document, 2) + "\n");
  sink.commit();
  if (plot) {
    const std::string where = cpu + ", PE kernels " + here.pe_kernels + ", oneDNN " +
                              here.onednn_version + ", " + std::to_string(total) + " measurements";
    plot->write(plot::draw_latency_figure(measurements, where));
    plot->commit();
  }
  return 0;
}

}  // namespace

RunCommand add_bench_command(CLI::App& root) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* command = root.add_subcommand(
      "bench",
      "Latency percentiles and per-stage breakdown, swept over seq/batch/threads/PE/dtype");
  command->add_option("-m,--model", options->model, "Model folder");
  command->add_option("--config", options->config,
                      "Random-weight preset instead of a model: tiny | mini | small | base");
  CLI::Option* seq = command
                         ->add_option("--seq", options->seq,
                                      "Sequence lengths, comma-separated (the default is cut to "
                                      "the model's positions; a length given here must fit)")
                         ->capture_default_str();
  command->add_option("--batch-size", options->batch, "Batch sizes, comma-separated")
      ->capture_default_str();
  command->add_option("--batch", options->batch)->group("");  // the name it had before
  add_thread_counts_option(
      *command, options->threads,
      "Default 1: one thread's latency is steady on a busy machine and compares across machines");
  command->add_option("--pe", options->pe,
                      "PE kinds for --config (none,sinusoidal,learned,rope,alibi,relative)");
  command->add_option("--isa", options->isa,
                      "Force the PE kernels' ISA (scalar, avx2, avx512, neon)");
  command->add_option("--warmup", options->warmup, "Untimed runs per row")->capture_default_str();
  command->add_option("--repeat", options->repeat, "Timed runs per row (0: use --min-time)")
      ->capture_default_str();
  command
      ->add_option("--min-time", options->min_time,
                   "Seconds of timed runs per row (at least 5 runs)")
      ->capture_default_str();
  add_dtype_option(*command, options->dtype, /*list=*/true);
  add_output_options(*command, options->output,
                     {OutputFormat::kMarkdown, OutputFormat::kCsv, OutputFormat::kJson,
                      OutputFormat::kJsonl, OutputFormat::kText},
                     /*format_option=*/true);
  command
      ->add_option("--corpus", options->corpus,
                   "Instead of the sweep: run -m MODEL on this file of texts (one a line) as "
                   "`run -i` does, outputs discarded; report texts/s, tokens/s, padding waste "
                   "(against unsorted batches of 32), stage shares and peak RSS (-f text|json)")
      ->type_name("FILE");
  command
      ->add_option("--max-batch-tokens", options->max_batch_tokens,
                   "--corpus: token budget of a batch (as run's)")
      ->capture_default_str();
  command
      ->add_option("--long", options->long_texts,
                   "--corpus: texts longer than the model allows: error | truncate | chunk")
      ->capture_default_str();
  command
      ->add_option("--plot", options->plot,
                   "Also draw latency against --seq as SVG: a line per PE kind (p50, min..p99 "
                   "whiskers), a panel per batch/threads")
      ->type_name("FILE");
  return [options, seq] {
    options->seq_given = seq->count() > 0;
    return bench(*options);
  };
}

}  // namespace tinyenc::cli
