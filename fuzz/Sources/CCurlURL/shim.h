// libcurl's URL API: the url fuzz target reads each built upstream URL back the way the
// upstream client's CURLOPT_URL will read it.
#include <curl/curl.h>
