#include "system/sha256.hpp"

#include <fmt/format.h>

#include "system/user_error.hpp"

#if COURSE_HAVE_LIBCRYPTO
#include <openssl/evp.h>
#endif

namespace grader {

namespace {
constexpr const char* missing =
    "this grader was built without OpenSSL's libcrypto, which computes the SHA-256 that files a "
    "submission's results. Install it (Debian/Ubuntu: sudo apt install libssl-dev), then configure and "
    "build again (cmake --preset default && cmake --build build)";
}  // namespace

bool sha256_available(std::string* why) {
#if COURSE_HAVE_LIBCRYPTO
    (void)why;
    return true;
#else
    if (why) *why = missing;
    return false;
#endif
}

#if COURSE_HAVE_LIBCRYPTO

namespace {
EVP_MD_CTX* ctx(void* p) { return static_cast<EVP_MD_CTX*>(p); }

[[noreturn]] void failed(const char* what) {
    throw user_error(build_error, fmt::format("SHA-256 failed in OpenSSL ({}): the libcrypto this grader "
                                              "loaded is broken; reinstall libssl3 and libssl-dev",
                                              what));
}
}  // namespace

sha256::sha256() : context_(EVP_MD_CTX_new()) {
    if (!context_ || EVP_DigestInit_ex(ctx(context_), EVP_sha256(), nullptr) != 1) {
        EVP_MD_CTX_free(ctx(context_));
        failed("EVP_DigestInit_ex");
    }
}

sha256::~sha256() { EVP_MD_CTX_free(ctx(context_)); }

sha256& sha256::update(std::string_view bytes) {
    if (EVP_DigestUpdate(ctx(context_), bytes.data(), bytes.size()) != 1) failed("EVP_DigestUpdate");
    return *this;
}

std::string sha256::hex_digest() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(ctx(context_), digest, &length) != 1) failed("EVP_DigestFinal_ex");
    std::string hex;
    for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
    return hex;
}

#else

sha256::sha256() { throw user_error(build_error, missing); }
sha256::~sha256() = default;
sha256& sha256::update(std::string_view) { return *this; }
std::string sha256::hex_digest() { return {}; }

#endif

std::string sha256_hex(std::string_view bytes) { return sha256().update(bytes).hex_digest(); }

}  // namespace grader
