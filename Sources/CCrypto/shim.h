#ifndef RESHAPE_CCRYPTO_SHIM_H
#define RESHAPE_CCRYPTO_SHIM_H

// OpenSSL's libcrypto (already loaded: libcurl links it), for SHA-256 only.
#include <openssl/evp.h>
#include <openssl/sha.h>

#endif
