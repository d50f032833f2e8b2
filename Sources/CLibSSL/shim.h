#ifndef PUSHSEAL_CLIBSSL_SHIM_H
#define PUSHSEAL_CLIBSSL_SHIM_H
/*
 * OpenSSL's TLS client (libssl), for media downloads and APNs. Only OpenSSL 3 APIs, nothing deprecated.
 * The inline functions give Swift the calls OpenSSL spells as macros.
 */
#define OPENSSL_API_COMPAT 30000
#define OPENSSL_NO_DEPRECATED
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

/* TLS 1.2 at least, and a peer that closes without close_notify is an end of stream (the body's
 * length is checked above TLS, so a truncation is caught there). Returns 1 on success. */
static inline int CLibSSL_configure_client(SSL_CTX *context) {
    SSL_CTX_set_options(context, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    return SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1;
}

/* Server Name Indication. Returns 1 on success. */
static inline int CLibSSL_set_server_name(SSL *connection, const char *name) {
    return (int)SSL_set_tlsext_host_name(connection, name);
}

/* SSL_write may report part of a buffer written, and a write repeated after WANT_WRITE may pass the
 * same bytes from another address: the HTTP/2 client writes from a buffer that grows and moves. */
static inline void CLibSSL_allow_partial_writes(SSL *connection) {
    SSL_set_mode(connection, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

#endif
