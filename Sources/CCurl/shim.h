#ifndef PUSHSEAL_CCURL_SHIM_H
#define PUSHSEAL_CCURL_SHIM_H
#include <curl/curl.h>
#endif
