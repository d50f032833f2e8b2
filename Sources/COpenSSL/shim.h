#ifndef PUSHSEAL_COPENSSL_SHIM_H
#define PUSHSEAL_COPENSSL_SHIM_H
/* Only OpenSSL 3 APIs are used; hide everything deprecated so that none can creep in. */
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

/* EVP_PKEY_fromdata selections as constants: Swift does not import these composite macros. */
static const int PUSHSEAL_EVP_PKEY_PUBLIC_KEY = EVP_PKEY_PUBLIC_KEY;
static const int PUSHSEAL_EVP_PKEY_KEYPAIR = EVP_PKEY_KEYPAIR;
#endif
