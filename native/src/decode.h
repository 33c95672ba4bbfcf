// One whisper_full run: options, result, the worker that runs it off the JS thread, and the
// abort control the JS side flips.
#pragma once

#include "common.h"
#include "state_pool.h"
#include "whisper_state_ext.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace voxedge {

struct decode_params {
    std::string language        = "auto";
    // With language "auto": the languages detection may choose among (whisper ids); empty = any.
    std::vector<int> detect_among;
    bool        translate       = false;
    std::string initial_prompt;
    bool        timestamps      = true;
    bool        token_timestamps = false;
    int         max_tokens      = 0;
    float       temperature     = 0.0f;
    float       temperature_inc = 0.2f;
    float       no_speech_thold = 0.6f;
    float       logprob_thold   = -1.0f;
    float       entropy_thold   = 2.4f;
    bool        suppress_nst    = false;
    bool        no_context      = false;
    bool        single_segment  = false;
    int         n_threads       = 4;
    int         poll_level      = 50;  // ggml threadpool polling, 0 (sleep at once) .. 100; ggml's default
    int         beam_size       = 1;  // 1 = greedy
    int         best_of         = 5;
    int         audio_ctx       = 0;
};

struct token_out {
    int32_t     id;
    std::string text;
    float       p;
    float       plog;
    int64_t     t0;
    int64_t     t1;
};

struct segment_out {
    int64_t                t0;  // centiseconds, as whisper reports them
    int64_t                t1;
    std::string            text;
    float                  no_speech_prob;
    std::vector<token_out> tokens;
};

// Where one decode's time went, for the stage breakdown of the benches and the node's task log.
struct decode_timings {
    double        state_ms      = 0;  // getting a whisper_state (pool hit, or whisper_init_state)
    bool          state_created = false;
    double        total_ms      = 0;  // the whole native run, state included
    state_timings whisper;            // whisper's own counters for this decode
};

struct decode_result {
    std::string              language;
    float                    language_prob = -1.0f;  // < 0: given, not detected
    bool                     token_timestamps = false;
    std::vector<segment_out> segments;
    decode_timings           timings;
};

// Reads and type-checks the options object built by native/index.ts. Throws a TypeError on misuse.
decode_params parse_decode_params(Napi::Env env, Napi::Object opts, whisper_context * ctx);

// A Float32Array's samples, read in place: the reference keeps the array alive until the decode
// ends (the worker is destroyed on the JS thread). The caller must not write to or transfer it
// meanwhile, as with a Buffer given to fs.write.
struct pcm_view {
    const float *         data = nullptr;
    size_t                size = 0;
    Napi::ObjectReference keep;
};

// Checks a Float32Array argument and takes a view of it. Throws on misuse.
pcm_view view_pcm(Napi::Env env, Napi::Value value);

// The flag behind an AbortSignal: JS sets it, whisper's abort and encoder-begin callbacks poll it.
class control_wrap : public Napi::ObjectWrap<control_wrap> {
public:
    static Napi::Function define(Napi::Env env);
    static std::shared_ptr<std::atomic<bool>> flag_of(Napi::Env env, Napi::Value value);

    explicit control_wrap(const Napi::CallbackInfo & info);

private:
    Napi::Value abort(const Napi::CallbackInfo & info);
    Napi::Value aborted(const Napi::CallbackInfo & info);

    std::shared_ptr<std::atomic<bool>> flag;
};

// A whisper_state a stream keeps across decodes (its text context carries over). Busy while a
// decode runs on it. Taken from the model's pool when one is idle; given back to it when freed.
struct stream_core {
    pool_ptr          pool;
    decoder_ptr       dec;
    std::atomic<bool> busy{false};

    ~stream_core() {
        if (dec) {
            pool->adopt(std::move(dec));
        }
    }
};

// Starts a decode on the libuv pool and returns its Promise. `stream` null: the decode borrows a
// state from `pool` for its run.
Napi::Promise start_decode(
        Napi::Env env,
        pool_ptr pool,
        std::shared_ptr<stream_core> stream,
        pcm_view pcm,
        decode_params params,
        std::shared_ptr<std::atomic<bool>> abort_flag,
        Napi::Value on_progress);

} // namespace voxedge
