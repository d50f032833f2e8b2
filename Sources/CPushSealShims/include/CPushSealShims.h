#ifndef PUSHSEAL_SHIMS_H
#define PUSHSEAL_SHIMS_H
/* libcurl's setopt and getinfo are variadic, which Swift cannot call: one typed wrapper each. */
#include <curl/curl.h>

typedef size_t (*CPushSealShims_data_callback)(char *data, size_t size, size_t count, void *context);

CURLcode CPushSealShims_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode CPushSealShims_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode CPushSealShims_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode CPushSealShims_curl_easy_setopt_size(CURL *handle, CURLoption option, curl_off_t value);
CURLcode CPushSealShims_curl_easy_setopt_callback(CURL *handle, CURLoption option, CPushSealShims_data_callback value);
CURLMcode CPushSealShims_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);
CURLcode CPushSealShims_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode CPushSealShims_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

#endif
