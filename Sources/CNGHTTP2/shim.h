#ifndef PUSHSEAL_CNGHTTP2_SHIM_H
#define PUSHSEAL_CNGHTTP2_SHIM_H
/*
 * libnghttp2, the HTTP/2 framing, HPACK, stream states and flow control under `pushseal send`
 * and the gateway's delivery workers. It does no I/O: the bytes it reads and writes travel over
 * PushSealHTTPS's TLS connection.
 */
#include <nghttp2/nghttp2.h>

#endif
