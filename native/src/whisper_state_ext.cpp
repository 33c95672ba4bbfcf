// whisper_state is defined inside src/whisper.cpp, so the accessors of whisper_state_ext.h are
// compiled in that same translation unit: native/CMakeLists.txt makes this file the `whisper`
// target's source in place of whisper.cpp (same flags, same library, one extra pair of functions).
#include "whisper.cpp"

#include "whisper_state_ext.h"

#include "ggml-cpu.h"

namespace voxedge {

state_timings state_get_timings(const whisper_state * s) {
    state_timings t;
    t.mel_us    = s->t_mel_us;
    t.sample_us = s->t_sample_us;
    t.encode_us = s->t_encode_us;
    t.decode_us = s->t_decode_us;
    t.batchd_us = s->t_batchd_us;
    t.prompt_us = s->t_prompt_us;
    t.n_sample  = s->n_sample;
    t.n_encode  = s->n_encode;
    t.n_decode  = s->n_decode;
    t.n_batchd  = s->n_batchd;
    t.n_prompt  = s->n_prompt;
    t.n_fail_p  = s->n_fail_p;
    t.n_fail_h  = s->n_fail_h;
    return t;
}

void state_reset_timings(whisper_state * s) {
    s->t_mel_us = s->t_sample_us = s->t_encode_us = s->t_decode_us = s->t_batchd_us = s->t_prompt_us = 0;
    s->n_sample = s->n_encode = s->n_decode = s->n_batchd = s->n_prompt = s->n_fail_p = s->n_fail_h = 0;
}

void state_reset(whisper_state * s) {
    state_reset_timings(s);
    s->prompt_past0.clear();
    s->prompt_past1.clear();
    s->lang_id = 0;
    // whisper_full re-seeds decoders 1..n on every call but decoder 0 only in whisper_init_state
    s->decoders[0].rng = std::mt19937(0);
}

void state_set_threadpool(whisper_state * s, ggml_threadpool * pool) {
    for (ggml_backend_t backend : s->backends) {
        if (ggml_backend_is_cpu(backend)) {
            ggml_backend_cpu_set_threadpool(backend, pool);
        }
    }
}

void state_set_audio_ctx(whisper_state * s, int n_audio_ctx) {
    s->exp_n_audio_ctx = n_audio_ctx;
}

void state_set_abort_callback(whisper_state * s, bool (*callback)(void *), void * data) {
    for (ggml_backend_t backend : s->backends) {
        if (ggml_backend_is_cpu(backend)) {
            ggml_backend_cpu_set_abort_callback(backend, callback, data);
        }
    }
}

} // namespace voxedge
