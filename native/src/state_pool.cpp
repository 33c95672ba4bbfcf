#include "state_pool.h"

#include "whisper_state_ext.h"

#include <algorithm>

namespace voxedge {

decoder::decoder(whisper_state * state) : st(state), th([this] { loop(); }) {}

decoder::~decoder() {
    {
        std::lock_guard<std::mutex> lock(mu);
        stopping = true;
    }
    cv.notify_all();
    th.join();  // the thread's ggml threadpool (or OpenMP team) goes with it
    whisper_free_state(st);
}

void decoder::run(const std::function<void()> & fn) {
    std::unique_lock<std::mutex> lock(mu);
    job      = &fn;
    finished = false;
    failure  = nullptr;
    cv.notify_all();
    cv.wait(lock, [this] { return finished; });
    job = nullptr;
    if (failure) {
        std::rethrow_exception(failure);
    }
}

void decoder::loop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
        cv.wait(lock, [this] { return stopping || (job != nullptr && !finished); });
        if (stopping) {
            return;
        }
        const std::function<void()> * fn = job;
        lock.unlock();
        std::exception_ptr caught;
        try {
            (*fn)();
        } catch (...) {
            caught = std::current_exception();
        }
        lock.lock();
        failure  = caught;
        finished = true;
        cv.notify_all();
    }
}

state_pool::state_pool(context_ptr ctx, int capacity) : ctx(std::move(ctx)) {
    st.capacity = std::max(1, capacity);
}

decoder_ptr state_pool::make(op_error & err) {
    log_clear_last_error();
    whisper_state * s = nullptr;
    try {
        s = whisper_init_state(ctx.get());
    } catch (const std::exception &) {
        s = nullptr;
    }
    if (s == nullptr) {
        err = { "ERR_STATE_ALLOC", with_last_error("whisper_init_state failed") };
        return nullptr;
    }
    try {
        return std::make_unique<decoder>(s);
    } catch (const std::exception & e) {  // std::system_error: no thread could be started
        whisper_free_state(s);
        err = { "ERR_STATE_ALLOC", std::string("cannot start a decode thread: ") + e.what() };
        return nullptr;
    }
}

decoder_ptr state_pool::acquire(op_error & err, bool & created) {
    {
        std::lock_guard<std::mutex> lock(mu);
        if (!idle.empty()) {
            decoder_ptr d = std::move(idle.back());
            idle.pop_back();
            st.reused++;
            st.idle = static_cast<int32_t>(idle.size());
            created = false;
            state_reset(d->state());
            return d;
        }
        // counted before the allocation so concurrent acquirers see it
        st.live++;
        st.created++;
        st.peak = std::max(st.peak, st.live);
    }
    created = true;
    decoder_ptr d = make(err);
    if (!d) {
        std::lock_guard<std::mutex> lock(mu);
        st.live--;
        st.created--;
    }
    return d;
}

void state_pool::release(decoder_ptr d) {
    std::lock_guard<std::mutex> lock(mu);
    idle.push_back(std::move(d));
    st.idle = static_cast<int32_t>(idle.size());
}

decoder_ptr state_pool::detach(op_error & err) {
    {
        std::lock_guard<std::mutex> lock(mu);
        if (!idle.empty()) {
            decoder_ptr d = std::move(idle.back());
            idle.pop_back();
            st.reused++;
            st.live--;
            st.idle = static_cast<int32_t>(idle.size());
            state_reset(d->state());
            return d;
        }
    }
    return make(err);
}

void state_pool::adopt(decoder_ptr d) {
    std::unique_lock<std::mutex> lock(mu);
    if (st.live >= st.capacity) {
        lock.unlock();
        d.reset();  // joins its thread: not under the lock
        return;
    }
    st.live++;
    st.peak = std::max(st.peak, st.live);
    idle.push_back(std::move(d));
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
