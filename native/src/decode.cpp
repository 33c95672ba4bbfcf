#include "decode.h"

#include "ggml-cpu.h"

#include <algorithm>
#include <exception>
#include <new>

namespace voxedge {

Napi::Value result_to_js(Napi::Env env, const decode_result & res);

namespace {

bool abort_cb(void * user_data) {
    return static_cast<std::atomic<bool> *>(user_data)->load(std::memory_order_relaxed);
}

bool encoder_begin_cb(whisper_context * /*ctx*/, whisper_state * /*state*/, void * user_data) {
    return !abort_cb(user_data);
}

// While a decode runs, its abort flag is also checked between the operations of every graph (the
// encoder included), not only between graphs; cleared when the decode returns, before the flag goes.
class graph_abort_guard {
public:
    graph_abort_guard(whisper_state * state, std::atomic<bool> & aborted) : state_(state) {
        state_set_abort_callback(state_, abort_cb, &aborted);
    }
    ~graph_abort_guard() { state_set_abort_callback(state_, nullptr, nullptr); }
    graph_abort_guard(const graph_abort_guard &) = delete;
    graph_abort_guard & operator=(const graph_abort_guard &) = delete;

private:
    whisper_state * state_;
};

#ifdef VOXEDGE_GGML_THREADPOOL
// The ggml threadpool of the calling thread: a state's decodes all run on its decoder's own thread,
// so this is one pool per state. Its workers stay between graphs (without one ggml starts and joins
// threads around every decoder pass); made again only when a decode asks for other threads or
// another polling level, which ggml fixes when it makes the pool. It is made paused: a new pool's
// workers would otherwise start polling at once, beside the log-mel that comes before any graph.
struct thread_pool_holder {
    ggml_threadpool *       pool = nullptr;
    ggml_threadpool_params  params{};

    ~thread_pool_holder() {
        if (pool != nullptr) {
            ggml_threadpool_free(pool);
        }
    }

    // A pool made for other threads or another polling level is handed back in `retired`, not
    // freed: the state's CPU backend still points at it, and ggml pauses a backend's previous pool
    // when it is given a new one, so the caller frees it only after that.
    ggml_threadpool * get(int n_threads, int poll_level, ggml_threadpool *& retired) {
        ggml_threadpool_params want = ggml_threadpool_params_default(n_threads);
        want.poll                   = static_cast<uint32_t>(poll_level);
        want.paused                 = true;
        retired                     = nullptr;
        if (pool != nullptr && ggml_threadpool_params_match(&params, &want)) {
            return pool;
        }
        retired = pool;
        pool    = ggml_threadpool_new(&want);
        params  = want;
        return pool;
    }
};

thread_local thread_pool_holder thread_pool;

// The threadpool the state's CPU backend computes with while one decode runs. Between graphs its
// workers poll for the next one (poll level 50: ~200 ms of a core after the last graph); outside a
// decode they sleep, so they never take a core from another state's decode or another process.
// ggml resumes a paused pool when it starts a graph; the lease pauses it again when the decode
// returns. Without a pool (it could not be made) ggml makes one per graph.
class thread_pool_lease {
public:
    thread_pool_lease(whisper_state * state, const decode_params & p) {
        ggml_threadpool * retired = nullptr;
        pool_ = thread_pool.get(p.n_threads, p.poll_level, retired);
        state_set_threadpool(state, pool_);  // pauses the retired pool, which must still exist
        if (retired != nullptr) {
            ggml_threadpool_free(retired);
        }
    }
    ~thread_pool_lease() {
        if (pool_ != nullptr) {
            ggml_threadpool_pause(pool_);
        }
    }
    thread_pool_lease(const thread_pool_lease &) = delete;
    thread_pool_lease & operator=(const thread_pool_lease &) = delete;

private:
    ggml_threadpool * pool_ = nullptr;
};
#else
// OpenMP builds: libgomp's team computes every graph, and its spin was fixed when it loaded.
class thread_pool_lease {
public:
    thread_pool_lease(whisper_state * /*state*/, const decode_params & /*p*/) {}
};
#endif

// Forwards whisper's per-window progress to JS through a thread-safe function.
struct progress_sink {
    Napi::ThreadSafeFunction tsfn;
    int                      last = -1;

    void report(int percent) {
        percent = std::min(percent, 100);  // whisper's last window can seek past the end
        if (percent <= last) {
            return;
        }
        last = percent;
        auto * value = new int(percent);
        auto call = [](Napi::Env env, Napi::Function cb, int * v) {
            const int p = *v;
            delete v;
            if (env != nullptr && cb != nullptr) {
                cb.Call({ Napi::Number::New(env, p) });
            }
        };
        if (tsfn.NonBlockingCall(value, call) != napi_ok) {
            delete value;
        }
    }
};

void progress_cb(whisper_context * /*ctx*/, whisper_state * /*state*/, int progress, void * user_data) {
    static_cast<progress_sink *>(user_data)->report(progress);
}

op_error aborted_error() {
    return { "ERR_ABORTED", "decode aborted" };
}

// Detects the language ourselves (whisper_full would do the same encoder pass) to report its
// probability. Leaves the log-mel of `pcm` in the state; `mel_ready` tells whisper_full to reuse it.
op_error resolve_language(whisper_context * ctx, whisper_state * state, const pcm_view & pcm,
                          const decode_params & p, std::atomic<bool> & aborted, decode_result & out, bool & mel_ready) {
    mel_ready = false;
    if (!whisper_is_multilingual(ctx)) {
        out.language = "en";
        return {};
    }
    if (p.language != "auto") {
        out.language = whisper_lang_str(whisper_lang_id(p.language.c_str()));
        return {};
    }
    if (whisper_pcm_to_mel_with_state(ctx, state, pcm.data, static_cast<int>(pcm.size), p.n_threads) != 0) {
        return { "ERR_DECODE_FAILED", with_last_error("log-mel computation failed") };
    }
    mel_ready = true;
    if (aborted.load()) {
        return aborted_error();
    }
    std::vector<float> probs(whisper_lang_max_id() + 1, 0.0f);
    state_set_audio_ctx(state, p.audio_ctx);  // the window this decode asked for, not the last one's
    int id = whisper_lang_auto_detect_with_state(ctx, state, 0, p.n_threads, probs.data());
    if (aborted.load()) {
        return aborted_error();
    }
    if (id < 0) {
        return { "ERR_DECODE_FAILED", with_last_error("language detection failed") };
    }
    if (!p.detect_among.empty()) {
        // the most probable of the allowed languages, however likely a language outside them is
        id = p.detect_among.front();
        for (const int allowed : p.detect_among) {
            if (probs[allowed] > probs[id]) {
                id = allowed;
            }
        }
    }
    out.language      = whisper_lang_str(id);
    out.language_prob = probs[id];
    return {};
}

whisper_full_params make_full_params(const decode_params & p, const std::string & language, std::atomic<bool> & aborted) {
    whisper_full_params wp = whisper_full_default_params(
            p.beam_size > 1 ? WHISPER_SAMPLING_BEAM_SEARCH : WHISPER_SAMPLING_GREEDY);
    wp.n_threads        = p.n_threads;
    wp.translate        = p.translate;
    wp.no_context       = p.no_context;
    wp.no_timestamps    = !p.timestamps;
    wp.single_segment   = p.single_segment;
    wp.print_special    = false;
    wp.print_progress   = false;
    wp.print_realtime   = false;
    wp.print_timestamps = false;
    wp.token_timestamps = p.token_timestamps;
    wp.max_tokens       = p.max_tokens;
    wp.audio_ctx        = p.audio_ctx;
    wp.initial_prompt   = p.initial_prompt.empty() ? nullptr : p.initial_prompt.c_str();
    wp.language         = language.c_str();
    wp.detect_language  = false;
    wp.suppress_nst     = p.suppress_nst;
    wp.temperature      = p.temperature;
    wp.temperature_inc  = p.temperature_inc;
    wp.entropy_thold    = p.entropy_thold;
    wp.logprob_thold    = p.logprob_thold;
    wp.no_speech_thold  = p.no_speech_thold;
    wp.greedy.best_of   = p.best_of;
    wp.beam_search.beam_size = p.beam_size;

    // polled between graph computations (after each encoder pass and decoder step)
    wp.abort_callback                   = abort_cb;
    wp.abort_callback_user_data         = &aborted;
    wp.encoder_begin_callback           = encoder_begin_cb;
    wp.encoder_begin_callback_user_data = &aborted;
    return wp;
}

// Segment times in centiseconds, clamped to the audio. Without timestamps whisper.cpp derives t0
// from a timestamp token it never sampled (values like -1007 s); a window's segment starts where
// the previous one ended.
void collect_segments(whisper_context * ctx, whisper_state * state, bool timestamps, int64_t duration_cs,
                      decode_result & out) {
    const whisper_token eot = whisper_token_eot(ctx);
    const int n_segments = whisper_full_n_segments_from_state(state);
    out.segments.reserve(n_segments);
    int64_t prev_t1 = 0;
    for (int i = 0; i < n_segments; i++) {
        segment_out seg;
        const int64_t t0 = timestamps ? whisper_full_get_segment_t0_from_state(state, i) : prev_t1;
        seg.t1             = std::clamp<int64_t>(whisper_full_get_segment_t1_from_state(state, i), 0, duration_cs);
        seg.t0             = std::clamp<int64_t>(t0, 0, seg.t1);
        seg.text           = whisper_full_get_segment_text_from_state(state, i);
        seg.no_speech_prob = whisper_full_get_segment_no_speech_prob_from_state(state, i);
        prev_t1 = seg.t1;
        const int n_tokens = whisper_full_n_tokens_from_state(state, i);
        for (int j = 0; j < n_tokens; j++) {
            const whisper_token_data d = whisper_full_get_token_data_from_state(state, i, j);
            if (d.id >= eot) {
                continue;  // special and timestamp tokens carry no text
            }
            seg.tokens.push_back({ d.id, whisper_full_get_token_text_from_state(ctx, state, i, j), d.p, d.plog, d.t0, d.t1 });
        }
        out.segments.push_back(std::move(seg));
    }
}

op_error run_decode(whisper_context * ctx, whisper_state * state, const pcm_view & pcm, const decode_params & p,
                    std::atomic<bool> & aborted, progress_sink * sink, decode_result & out) {
    log_clear_last_error();
    if (aborted.load()) {
        return aborted_error();
    }
    const thread_pool_lease pool_lease(state, p);
    const graph_abort_guard abort_guard(state, aborted);
    bool mel_ready = false;
    op_error err = resolve_language(ctx, state, pcm, p, aborted, out, mel_ready);
    if (!err.ok()) {
        return err;
    }
    whisper_full_params wp = make_full_params(p, out.language, aborted);
    if (sink != nullptr) {
        wp.progress_callback           = progress_cb;
        wp.progress_callback_user_data = sink;
    }
    // n_samples 0 makes whisper_full keep the state's log-mel; token timestamps also need the samples
    // (signal energy), so they get them again
    const int n_samples = mel_ready && !p.token_timestamps ? 0 : static_cast<int>(pcm.size);
    const int rc = whisper_full_with_state(ctx, state, wp, pcm.data, n_samples);
    if (aborted.load()) {
        return aborted_error();
    }
    if (rc != 0) {
        return { "ERR_DECODE_FAILED", with_last_error("whisper_full failed with code " + std::to_string(rc)) };
    }
    out.token_timestamps = p.token_timestamps;
    const int64_t duration_cs = (static_cast<int64_t>(pcm.size) * 100 + WHISPER_SAMPLE_RATE - 1) / WHISPER_SAMPLE_RATE;
    collect_segments(ctx, state, p.timestamps, duration_cs, out);
    if (sink != nullptr) {
        sink->report(100);
    }
    return {};
}

double ms_since(int64_t start_us) {
    return static_cast<double>(ggml_time_us() - start_us) / 1000.0;
}

class decode_worker : public Napi::AsyncWorker {
public:
    decode_worker(Napi::Env env, pool_ptr pool, std::shared_ptr<stream_core> stream, pcm_view pcm,
                  decode_params params, std::shared_ptr<std::atomic<bool>> abort_flag, Napi::Value on_progress)
        : Napi::AsyncWorker(env, "voxedge.decode"),
          deferred(Napi::Promise::Deferred::New(env)),
          pool(std::move(pool)),
          stream(std::move(stream)),
          pcm(std::move(pcm)),
          params(std::move(params)),
          abort_flag(std::move(abort_flag)) {
        if (on_progress.IsFunction()) {
            sink          = std::make_unique<progress_sink>();
            sink->tsfn    = Napi::ThreadSafeFunction::New(env, on_progress.As<Napi::Function>(), "voxedge.progress", 0, 1);
            tsfn_released = false;
        }
    }

    ~decode_worker() override { release_progress(); }

    Napi::Promise promise() const { return deferred.Promise(); }

protected:
    void Execute() override {
        const int64_t started = ggml_time_us();
        try {
            if (stream) {
                decode_on(*stream->dec);
            } else if (abort_flag->load()) {
                err = aborted_error();  // aborted while it waited for its turn: no state needed
            } else {
                bool created = false;
                decoder_ptr dec = pool->acquire(err, created);
                result.timings.state_ms      = ms_since(started);
                result.timings.state_created = created;
                if (dec) {
                    try {
                        decode_on(*dec);
                    } catch (...) {
                        pool->release(std::move(dec));
                        throw;
                    }
                    pool->release(std::move(dec));
                }
            }
        } catch (const std::bad_alloc &) {
            err = { "ERR_OUT_OF_MEMORY", "out of memory during decode" };
        } catch (const std::exception & e) {
            err = { "ERR_DECODE_FAILED", std::string("decode failed: ") + e.what() };
        }
        result.timings.total_ms = ms_since(started);
        release_progress();
    }

    void OnOK() override {
        finish();
        Napi::Env env = Env();
        if (!err.ok()) {
            deferred.Reject(make_error(env, err.code, err.message).Value());
            return;
        }
        deferred.Resolve(result_to_js(env, result));
    }

    void OnError(const Napi::Error & e) override {
        finish();
        deferred.Reject(e.Value());
    }

private:
    // The decode itself, on the decoder's own thread (this libuv thread waits for it).
    void decode_on(decoder & dec) {
        whisper_state * state = dec.state();
        dec.run([&] {
            state_reset_timings(state);
            err = run_decode(pool->context(), state, pcm, params, *abort_flag, sink.get(), result);
            result.timings.whisper = state_get_timings(state);
        });
    }

    void finish() {
        if (stream) {
            stream->busy.store(false);
        } else {
            pool->leave();
        }
    }

    void release_progress() {
        if (!tsfn_released) {
            tsfn_released = true;
            sink->tsfn.Release();
        }
    }

    Napi::Promise::Deferred              deferred;
    pool_ptr                             pool;
    std::shared_ptr<stream_core>         stream;
    pcm_view                             pcm;
    decode_params                        params;
    std::shared_ptr<std::atomic<bool>>   abort_flag;
    std::unique_ptr<progress_sink>       sink;
    bool                                 tsfn_released = true;
    op_error                             err;
    decode_result                        result;
};

} // namespace

Napi::Promise start_decode(Napi::Env env, pool_ptr pool, std::shared_ptr<stream_core> stream, pcm_view pcm,
                           decode_params params, std::shared_ptr<std::atomic<bool>> abort_flag, Napi::Value on_progress) {
    state_pool * gate = stream ? nullptr : pool.get();  // a stream runs one decode at a time on its own state
    auto * worker = new decode_worker(env, std::move(pool), std::move(stream), std::move(pcm), std::move(params),
                                      std::move(abort_flag), on_progress);
    Napi::Promise promise = worker->promise();
    if (gate != nullptr) {
        gate->enter(worker);
    } else {
        worker->Queue();
    }
    return promise;
}

} // namespace voxedge
