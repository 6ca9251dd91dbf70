import CLibCurl

/// The libcurl bench runs with, as libcurl reports itself ("7.88.1"), for a folder's provenance.
package enum CurlVersion {
    package static var current: String {
        guard let info = curl_version_info(CURLVERSION_FIRST), let version = info.pointee.version else {
            return "unknown"
        }
        return String(cString: version)
    }
}
