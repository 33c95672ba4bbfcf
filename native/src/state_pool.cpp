#include "state_pool.h"

#include "whisper_state_ext.h"

#include <algorithm>
#include <exception>

namespace voxedge {

state_pool::state_pool(context_ptr ctx, int capacity) : ctx(std::move(ctx)) {
    st.capacity = std::max(1, capacity);
}

state_pool::~state_pool() {
    for (whisper_state * s : idle) {
        whisper_free_state(s);
    }
}

whisper_state * state_pool::make(op_error & err) {
    log_clear_last_error();
    whisper_state * s = nullptr;
    try {
        s = whisper_init_state(ctx.get());
    } catch (const std::exception &) {
        s = nullptr;
    }
    if (s == nullptr) {
        err = { "ERR_STATE_ALLOC", with_last_error("whisper_init_state failed") };
    }
    return s;
}

whisper_state * state_pool::acquire(op_error & err, bool & created) {
    {
        std::lock_guard<std::mutex> lock(mu);
        if (!idle.empty()) {
            whisper_state * s = idle.back();
            idle.pop_back();
            st.reused++;
            st.idle = static_cast<int32_t>(idle.size());
            created = false;
            state_reset(s);
            return s;
        }
        // counted before the allocation so concurrent acquirers see it
        st.live++;
        st.created++;
        st.peak = std::max(st.peak, st.live);
    }
    created = true;
    whisper_state * s = make(err);
    if (s == nullptr) {
        std::lock_guard<std::mutex> lock(mu);
        st.live--;
        st.created--;
    }
    return s;
}

void state_pool::release(whisper_state * s) {
    std::lock_guard<std::mutex> lock(mu);
    idle.push_back(s);
    st.idle = static_cast<int32_t>(idle.size());
}

whisper_state * state_pool::detach(op_error & err) {
    {
        std::lock_guard<std::mutex> lock(mu);
        if (!idle.empty()) {
            whisper_state * s = idle.back();
            idle.pop_back();
            st.reused++;
            st.live--;
            st.idle = static_cast<int32_t>(idle.size());
            state_reset(s);
            return s;
        }
    }
    return make(err);
}

void state_pool::adopt(whisper_state * s) {
    std::lock_guard<std::mutex> lock(mu);
    if (st.live >= st.capacity) {
        whisper_free_state(s);
        return;
    }
    st.live++;
    st.peak = std::max(st.peak, st.live);
    idle.push_back(s);
    st.idle = static_cast<int32_t>(idle.size());
}

void state_pool::enter(Napi::AsyncWorker * worker) {
    if (running < st.capacity) {
        running++;
        worker->Queue();
    } else {
        waiting.push_back(worker);
    }
}

void state_pool::leave() {
    if (waiting.empty()) {
        running--;
        return;
    }
    Napi::AsyncWorker * next = waiting.front();  // its turn: the finished decode's slot passes on
    waiting.pop_front();
    next->Queue();
}

pool_stats state_pool::stats() {
    std::lock_guard<std::mutex> lock(mu);
    return st;
}

} // namespace voxedge
