// The Objective-C bridging header of the Safari extension target: makes laika_request and
// laika_free_string (native-host/safari/include/laika.h, liblaika_safari.a) callable from
// SafariWebExtensionHandler.swift. Set it as the target's "Objective-C Bridging Header" and add
// native-host/safari/include to its "Header Search Paths" (see README.md).

#include "laika.h"
