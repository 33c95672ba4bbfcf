#include "common.h"

#include <atomic>
#include <cstdio>

namespace voxedge {

context_ptr make_context_ptr(whisper_context * ctx) {
    return context_ptr(ctx, whisper_free);
}

Napi::Error make_error(Napi::Env env, const std::string & code, const std::string & message) {
    Napi::Error err = Napi::Error::New(env, message);
    err.Set("code", Napi::String::New(env, code));
    return err;
}

Napi::Error make_type_error(Napi::Env env, const std::string & code, const std::string & message) {
    Napi::TypeError err = Napi::TypeError::New(env, message);
    err.Set("code", Napi::String::New(env, code));
    return err;
}

namespace {

std::atomic<int> g_log_level{0};

// whisper logs on the thread that runs the call, so a thread_local keeps concurrent decodes apart
thread_local std::string t_last_error;
thread_local int         t_last_level = GGML_LOG_LEVEL_NONE;

int threshold_for(int level) {
    switch (level) {
        case GGML_LOG_LEVEL_ERROR: return 1;
        case GGML_LOG_LEVEL_WARN:  return 2;
        case GGML_LOG_LEVEL_INFO:  return 3;
        default:                   return 4;
    }
}

void log_callback(ggml_log_level level, const char * text, void * /*user_data*/) {
    const int lvl = level == GGML_LOG_LEVEL_CONT ? t_last_level : static_cast<int>(level);
    t_last_level = lvl;
    if (lvl == GGML_LOG_LEVEL_ERROR) {
        std::string line = level == GGML_LOG_LEVEL_CONT ? t_last_error + text : std::string(text);
        while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) {
            line.pop_back();
        }
        t_last_error = line;
    }
    if (g_log_level.load(std::memory_order_relaxed) >= threshold_for(lvl)) {
        std::fputs(text, stderr);
    }
}

} // namespace

void log_install() {
    whisper_log_set(log_callback, nullptr);
}

void log_set_level(int level) {
    g_log_level.store(level, std::memory_order_relaxed);
}

int log_get_level() {
    return g_log_level.load(std::memory_order_relaxed);
}

void log_clear_last_error() {
    t_last_error.clear();
}

std::string log_last_error() {
    return t_last_error;
}

std::string with_last_error(const std::string & message) {
    const std::string last = log_last_error();
    return last.empty() ? message : message + " (whisper: " + last + ")";
}

addon_data & get_addon_data(Napi::Env env) {
    return *env.GetInstanceData<addon_data>();
}

} // namespace voxedge
