// Whisper states kept per model and reused across decodes: whisper_init_state allocates the KV caches
// and measures and allocates every compute buffer (about 170 MB and tens of ms for base), so a
// resident service makes them once, not once per job.
#pragma once

#include "common.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace voxedge {

struct pool_stats {
    int64_t created  = 0;  // whisper_init_state calls made by this pool
    int64_t reused   = 0;  // acquisitions served by an idle state
    int32_t live     = 0;  // states the pool owns now (idle + lent to decodes)
    int32_t idle     = 0;
    int32_t peak     = 0;  // highest `live` seen
    int32_t capacity = 0;
};

// Decodes enter through the gate (JS thread) so at most `capacity` run at once; the others wait in
// order without holding a libuv thread. A running decode acquires a state on its worker thread and
// releases it when done, so the pool never owns more than `capacity` states. A stream's state that
// comes back while the pool already owns `capacity` is freed.
class state_pool {
public:
    state_pool(context_ptr ctx, int capacity);
    ~state_pool();

    state_pool(const state_pool &) = delete;
    state_pool & operator=(const state_pool &) = delete;

    // An idle state (reset for a new owner) or a new one; null with `err` set if allocation fails.
    // `created` tells whether whisper_init_state ran.
    whisper_state * acquire(op_error & err, bool & created);
    void            release(whisper_state * state);

    // Hands an idle state over for good (a stream keeps it), or makes one outside the pool's count.
    whisper_state * detach(op_error & err);
    // Takes a detached state back (kept while the pool has room, else freed).
    void            adopt(whisper_state * state);

    // JS thread only. `enter` starts the worker now or queues it; `leave` (from a finished decode's
    // completion) starts the next one waiting.
    void enter(Napi::AsyncWorker * worker);
    void leave();

    pool_stats stats();

    whisper_context * context() const { return ctx.get(); }
    const context_ptr & context_ref() const { return ctx; }

private:
    whisper_state * make(op_error & err);

    context_ptr                  ctx;
    std::mutex                   mu;
    std::vector<whisper_state *> idle;
    pool_stats                   st;

    int                              running = 0;  // JS thread only, like `waiting`
    std::deque<Napi::AsyncWorker *>  waiting;
};

using pool_ptr = std::shared_ptr<state_pool>;

} // namespace voxedge
