// Structural check of a ggml whisper model file before whisper.cpp reads it.
#pragma once

#include "common.h"

#include <string>

namespace voxedge {

// whisper.cpp trusts the file: a bad ftype hits a GGML_ASSERT (abort() kills the host process),
// huge lengths allocate without bound, and a file cut inside its last tensor still "loads".
// This walks every header and tensor extent first (seeks only, no weight reads).
// Returns ok() or ERR_MODEL_NOT_FOUND / ERR_MODEL_UNREADABLE / ERR_MODEL_INVALID.
op_error check_model_file(const std::string & path);

} // namespace voxedge
