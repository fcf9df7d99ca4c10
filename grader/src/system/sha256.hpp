#pragma once
// SHA-256, from OpenSSL's libcrypto (Debian/Ubuntu: libssl-dev). It is
// optional at configure time, like the batch's other libraries: without it
// the rest of the grader builds, and hashing says what to install.
#include <string>
#include <string_view>

namespace grader {

// False when this grader was built without libcrypto; `why` then says what
// to install.
bool sha256_available(std::string* why = nullptr);

// An incremental SHA-256: feed bytes in pieces, then read the digest as 64
// lowercase hex digits. Throws user_error (build_error) when unavailable.
class sha256 {
public:
    sha256();
    ~sha256();
    sha256(const sha256&) = delete;
    sha256& operator=(const sha256&) = delete;

    sha256& update(std::string_view bytes);
    std::string hex_digest();  // ends the hash: update() may not follow

private:
    void* context_ = nullptr;  // an EVP_MD_CTX, kept out of this header
};

std::string sha256_hex(std::string_view bytes);

}  // namespace grader
