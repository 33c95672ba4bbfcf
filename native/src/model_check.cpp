#include "model_check.h"

#include "ggml.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

namespace voxedge {

namespace {

// Reads the file front to back, keeping its own offset: tellg and seekg cost a system call each
// (and seekg drops the stream's buffer), which for whisper's ~50k vocabulary entries was ~100 ms.
struct reader {
    std::ifstream in;
    int64_t       size   = 0;
    int64_t       offset = 0;

    int64_t left() const { return size - offset; }

    bool read(char * dst, int64_t n) {
        if (n < 0 || n > left()) {
            return false;
        }
        in.read(dst, n);
        offset += n;
        return static_cast<bool>(in);
    }

    bool read_i32(int32_t & v) {
        // ggml files are little-endian; so is every target we build for
        return read(reinterpret_cast<char *>(&v), sizeof(v));
    }

    bool skip(int64_t n) {
        if (n < 0 || n > left()) {
            return false;
        }
        // a token's text stays inside the stream's buffer; a tensor's data is sought over
        constexpr int64_t buffered_skip = 4096;
        if (n <= buffered_skip) {
            in.ignore(n);
        } else {
            in.seekg(n, std::ios::cur);
        }
        offset += n;
        return static_cast<bool>(in);
    }
};

op_error invalid(const std::string & path, const std::string & why) {
    return { "ERR_MODEL_INVALID", "invalid whisper model '" + path + "': " + why };
}

bool in_range(int32_t v, int32_t lo, int32_t hi) { return v >= lo && v <= hi; }

// ftypes ggml_ftype_to_ggml_type maps to a tensor type (anything else asserts)
bool valid_ftype(int32_t ftype) {
    if (ftype < 0) {
        return false;
    }
    const int32_t base = ftype % GGML_QNT_VERSION_FACTOR;
    return base <= GGML_FTYPE_MOSTLY_Q1_0 && (base < 4 || base > 6);
}

bool valid_tensor_type(int32_t ttype) {
    if (!in_range(ttype, 0, GGML_TYPE_COUNT - 1)) {
        return false;
    }
    const auto type = static_cast<ggml_type>(ttype);
    return ggml_blck_size(type) > 0 && ggml_type_size(type) > 0;
}

} // namespace

op_error check_model_file(const std::string & path) {
    reader r;
    r.in.open(path, std::ios::binary | std::ios::ate);
    if (!r.in) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR) {
            return { "ERR_MODEL_NOT_FOUND", "model file not found: '" + path + "'" };
        }
        return { "ERR_MODEL_UNREADABLE", "cannot open model file '" + path + "': " + std::strerror(err) };
    }
    r.size = static_cast<int64_t>(r.in.tellg());
    r.in.seekg(0);

    int32_t magic = 0;
    if (!r.read_i32(magic) || static_cast<uint32_t>(magic) != GGML_FILE_MAGIC) {
        return invalid(path, "not a ggml whisper file (bad magic)");
    }

    // n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer,
    // n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels, ftype
    int32_t hp[11];
    for (auto & v : hp) {
        if (!r.read_i32(v)) {
            return invalid(path, "truncated header");
        }
    }
    const int32_t n_vocab = hp[0], n_audio_ctx = hp[1], n_audio_state = hp[2], n_audio_head = hp[3];
    const int32_t n_audio_layer = hp[4], n_text_ctx = hp[5], n_text_state = hp[6], n_text_head = hp[7];
    const int32_t n_text_layer = hp[8], n_mels = hp[9], ftype = hp[10];

    if (!in_range(n_vocab, 1, 1 << 18) || !in_range(n_audio_ctx, 1, 1 << 16) || !in_range(n_text_ctx, 1, 1 << 16) ||
        !in_range(n_audio_state, 1, 1 << 16) || !in_range(n_audio_layer, 1, 256) || !in_range(n_text_layer, 1, 256) ||
        !in_range(n_audio_head, 1, 1024) || !in_range(n_text_head, 1, 1024) || !in_range(n_mels, 1, 1024)) {
        return invalid(path, "hyperparameters out of range");
    }
    if (n_text_state != n_audio_state || n_audio_state % n_audio_head != 0 || n_text_state % n_text_head != 0) {
        return invalid(path, "inconsistent state/head sizes");
    }
    if (!valid_ftype(ftype)) {
        return invalid(path, "unsupported ftype " + std::to_string(ftype));
    }

    int32_t filt_mel = 0, filt_fft = 0;
    if (!r.read_i32(filt_mel) || !r.read_i32(filt_fft) || filt_mel != n_mels || filt_fft != 201 ||
        !r.skip(int64_t(filt_mel) * filt_fft * 4)) {
        return invalid(path, "bad mel filterbank");
    }

    int32_t n_words = 0;
    if (!r.read_i32(n_words) || !in_range(n_words, 0, n_vocab)) {
        return invalid(path, "bad vocabulary size");
    }
    for (int32_t i = 0; i < n_words; i++) {
        int32_t len = 0;
        if (!r.read_i32(len) || !in_range(len, 0, 1 << 16) || !r.skip(len)) {
            return invalid(path, "truncated vocabulary at token " + std::to_string(i));
        }
    }

    // whisper.cpp stops at EOF once fewer than one tensor header's ints remain
    int32_t n_tensors = 0;
    while (r.left() >= 12) {
        int32_t n_dims = 0, name_len = 0, ttype = 0;
        r.read_i32(n_dims);
        r.read_i32(name_len);
        r.read_i32(ttype);
        if (!in_range(n_dims, 1, 4) || !in_range(name_len, 1, 1024) || !valid_tensor_type(ttype)) {
            return invalid(path, "bad tensor header #" + std::to_string(n_tensors));
        }
        const auto type = static_cast<ggml_type>(ttype);
        int64_t ne[4] = { 1, 1, 1, 1 };
        for (int d = 0; d < n_dims; d++) {
            int32_t v = 0;
            if (!r.read_i32(v) || !in_range(v, 1, 1 << 24)) {
                return invalid(path, "bad tensor shape #" + std::to_string(n_tensors));
            }
            ne[d] = v;
        }
        if (ne[0] % ggml_blck_size(type) != 0) {
            return invalid(path, "tensor row not a whole number of blocks #" + std::to_string(n_tensors));
        }
        std::string name(static_cast<size_t>(name_len), '\0');
        if (!r.read(name.data(), name_len)) {
            return invalid(path, "truncated tensor name");
        }
        const int64_t nbytes = static_cast<int64_t>(ggml_row_size(type, ne[0])) * ne[1] * ne[2] * ne[3];
        if (!r.skip(nbytes)) {
            return invalid(path, "truncated: tensor '" + name + "' needs " + std::to_string(nbytes) +
                                 " bytes, file ends after " + std::to_string(r.left()));
        }
        n_tensors++;
    }

    const int32_t expected = 11 + 15 * n_audio_layer + 24 * n_text_layer;
    if (n_tensors != expected) {
        return invalid(path, "has " + std::to_string(n_tensors) + " tensors, expected " + std::to_string(expected));
    }
    return {};
}

} // namespace voxedge
