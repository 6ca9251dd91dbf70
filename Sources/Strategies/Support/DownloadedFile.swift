import Foundation

/// Where a download is kept: a fresh UUID name in the strategy's work folder, as the article
/// moves its file into the caches directory under a fresh UUID.
func freshDestination(in directory: URL) -> URL {
    directory.appendingPathComponent(UUID().uuidString + ".download")
}

/// Moves a finished download out of URLSession's temporary location (which Apple's platforms
/// delete when the handler returns, and FoundationNetworking never deletes).
func moveDownloadedFile(_ temporaryFile: URL, to destination: URL) throws {
    do {
        try FileManager.default.moveItem(at: temporaryFile, to: destination)
    } catch {
        try? FileManager.default.removeItem(at: temporaryFile)
        throw FetchError.storage("moving \(temporaryFile.path) to \(destination.path) failed: \(error)")
    }
}
