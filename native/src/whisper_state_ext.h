// What the public whisper.h does not offer for a whisper_state we own: its own timing counters
// (whisper_get_timings reads only the context's default state), a reset for reuse, and the ggml
// threadpool its CPU backend computes with.
// Implemented in whisper_state_ext.cpp, compiled inside whisper.cpp's own translation unit.
#pragma once

#include <cstdint>

struct whisper_state;
struct ggml_threadpool;

namespace voxedge {

// Cumulative since the last reset; the fields of whisper_print_timings.
struct state_timings {
    int64_t mel_us    = 0;
    int64_t sample_us = 0;  // logits processing and sampling
    int64_t encode_us = 0;
    int64_t decode_us = 0;  // one-token decoder passes
    int64_t batchd_us = 0;  // decoder passes over a few tokens (first step, beam candidates)
    int64_t prompt_us = 0;  // decoder passes over a prompt
    int32_t n_sample  = 0;
    int32_t n_encode  = 0;
    int32_t n_decode  = 0;
    int32_t n_batchd  = 0;
    int32_t n_prompt  = 0;
    int32_t n_fail_p  = 0;  // temperature fallbacks: logprob threshold
    int32_t n_fail_h  = 0;  // temperature fallbacks: entropy threshold
};

state_timings state_get_timings(const whisper_state * state);

// Zeroes the counters only (a stream's state keeps its text context between decodes).
void state_reset_timings(whisper_state * state);

// Makes a used state decode as a fresh one would: counters zeroed, no text context carried from the
// previous owner, sampling RNG re-seeded as whisper_init_state seeds it, language back to its default.
void state_reset(whisper_state * state);

// Makes the state's CPU backend compute every graph (encoder, decoder passes) on `pool` instead of
// a threadpool ggml would start and stop around each graph; null goes back to that. Builds with
// OpenMP ignore the pool's threads (libgomp's team runs the graph).
void state_set_threadpool(whisper_state * state, ggml_threadpool * pool);

// Sets the encoder context the state's next encoder pass uses (0: the model's full window).
// whisper_full sets it from its params, but whisper_lang_auto_detect_with_state encodes with whatever
// the state's previous whisper_full left: the full 30 s on a fresh state (a live decode of 3 s paid
// for a 30 s encoder pass), a previous live decode's few seconds on a pooled state (a file job's
// language then read from the first seconds only).
void state_set_audio_ctx(whisper_state * state, int n_audio_ctx);

// Makes the state's CPU backend ask `callback` after every graph operation and stop the graph when it
// answers true. whisper_full checks its own abort callback only between graphs, so an abort during
// the encoder (a whole graph, hundreds of ms on a busy core) waited for the encoder to finish; null
// clears it. The callback's data must outlive every graph computed until it is cleared.
void state_set_abort_callback(whisper_state * state, bool (*callback)(void *), void * data);

} // namespace voxedge
