// Whisper states kept per model and reused across decodes: whisper_init_state allocates the KV caches
// and measures and allocates every compute buffer (about 170 MB and tens of ms for base), so a
// resident service makes them once, not once per job.
#pragma once

#include "common.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace voxedge {

// A whisper_state and the OS thread its decodes run on. That thread owns the ggml threadpool the
// state computes with (decode.cpp), so a pool's workers serve one state and outlive its graphs. In
// OpenMP builds it keeps one team per state: libuv hands work to any of its pool threads, and every
// one that ever decodes would keep a docked team; once libgomp manages more threads than there are
// CPUs it spins only ~100 rounds at each barrier before sleeping, and a decode passes thousands.
class decoder {
public:
    explicit decoder(whisper_state * state);
    ~decoder();  // joins the thread, frees the state

    decoder(const decoder &) = delete;
    decoder & operator=(const decoder &) = delete;

    whisper_state * state() const { return st; }

    // Runs `fn` on this decoder's thread; returns (or rethrows) when it has finished.
    void run(const std::function<void()> & fn);

private:
    void loop();

    whisper_state *               st;
    std::mutex                    mu;
    std::condition_variable       cv;
    const std::function<void()> * job = nullptr;
    std::exception_ptr            failure;
    bool                          finished = false;
    bool                          stopping = false;
    std::thread                   th;  // last: starts once the fields above exist
};

using decoder_ptr = std::unique_ptr<decoder>;

struct pool_stats {
    int64_t created  = 0;  // whisper_init_state calls made by this pool
    int64_t reused   = 0;  // acquisitions served by an idle state
    int32_t live     = 0;  // states the pool owns now (idle + lent to decodes)
    int32_t idle     = 0;
    int32_t peak     = 0;  // highest `live` seen
    int32_t capacity = 0;
};

// Decodes enter through the gate (JS thread) so at most `capacity` run at once; the others wait in
// order without holding a libuv thread. A running decode acquires a decoder on its worker thread and
// releases it when done, so the pool never owns more than `capacity` states. A stream's decoder that
// comes back while the pool already owns `capacity` is freed.
class state_pool {
public:
    state_pool(context_ptr ctx, int capacity);

    state_pool(const state_pool &) = delete;
    state_pool & operator=(const state_pool &) = delete;

    // An idle decoder (its state reset for a new owner) or a new one; null with `err` set if the
    // state cannot be allocated. `created` tells whether whisper_init_state ran.
    decoder_ptr acquire(op_error & err, bool & created);
    void        release(decoder_ptr d);

    // Hands an idle decoder over for good (a stream keeps it), or makes one outside the pool's count.
    decoder_ptr detach(op_error & err);
    // Takes a detached decoder back (kept while the pool has room, else freed).
    void        adopt(decoder_ptr d);

    // JS thread only. `enter` starts the worker now or queues it; `leave` (from a finished decode's
    // completion) starts the next one waiting.
    void enter(Napi::AsyncWorker * worker);
    void leave();

    pool_stats stats();

    whisper_context * context() const { return ctx.get(); }

private:
    decoder_ptr make(op_error & err);

    context_ptr              ctx;  // first: outlives the states below
    std::mutex               mu;
    std::vector<decoder_ptr> idle;
    pool_stats               st;

    int                             running = 0;  // JS thread only, like `waiting`
    std::deque<Napi::AsyncWorker *> waiting;
};

using pool_ptr = std::shared_ptr<state_pool>;

} // namespace voxedge
