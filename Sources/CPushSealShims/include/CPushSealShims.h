#ifndef PUSHSEAL_SHIMS_H
#define PUSHSEAL_SHIMS_H
/*
 * libcurl, loaded on first use.
 *
 * Only `pushseal send` (HTTP/2 to APNs) needs it, and linking libcurl would map it and its thirty-odd
 * dependencies into every process, the extension-sized `pushseal decrypt` included (media downloads
 * use PushSealHTTPS, on libssl, for that reason: libcurl's dependencies alone take 4-5 MB of RSS). So nothing
 * links libcurl: CPushSealShims_curl_load() opens it with dlopen and resolves each function
 * below once, and Swift calls curl only through these wrappers. They also give the variadic
 * setopt/getinfo calls, which Swift cannot make, one typed signature each.
 */
#include <curl/curl.h>

typedef size_t (*CPushSealShims_data_callback)(char *data, size_t size, size_t count, void *context);

/* Opens libcurl and resolves its functions; returns 1 on success (call before anything below). */
int CPushSealShims_curl_load(void);

/* CPushSealShims_curl_load, then curl_global_init once per process; returns 1 when curl is ready. */
int CPushSealShims_curl_ready(void);

CURLM *CPushSealShims_curl_multi_init(void);
CURLMcode CPushSealShims_curl_multi_cleanup(CURLM *multi);
CURLMcode CPushSealShims_curl_multi_add_handle(CURLM *multi, CURL *easy);
CURLMcode CPushSealShims_curl_multi_remove_handle(CURLM *multi, CURL *easy);
CURLMcode CPushSealShims_curl_multi_perform(CURLM *multi, int *running);
CURLMcode CPushSealShims_curl_multi_poll(CURLM *multi, int timeout_ms);
CURLMsg *CPushSealShims_curl_multi_info_read(CURLM *multi, int *queued);
CURLMcode CPushSealShims_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURL *CPushSealShims_curl_easy_init(void);
void CPushSealShims_curl_easy_cleanup(CURL *easy);
const char *CPushSealShims_curl_easy_strerror(CURLcode code);
struct curl_slist *CPushSealShims_curl_slist_append(struct curl_slist *list, const char *text);
void CPushSealShims_curl_slist_free_all(struct curl_slist *list);
CURLcode CPushSealShims_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode CPushSealShims_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode CPushSealShims_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode CPushSealShims_curl_easy_setopt_size(CURL *easy, CURLoption option, curl_off_t value);
CURLcode CPushSealShims_curl_easy_setopt_callback(CURL *easy, CURLoption option, CPushSealShims_data_callback value);
CURLcode CPushSealShims_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);

#endif
