import Foundation
import Imaging

/// An image the image server's origin serves, under a name that is a URL's path segment.
package struct ServedImage: Sendable {
    package var name: String
    package var body: Data
    /// From the image's header; nil when it has none the inspector reads.
    package var info: ImageInfo?

    package init(name: String, body: Data) {
        self.name = name
        self.body = body
        info = try? ImageDecoder.inspect(.memory(body))
    }
}

/// The images of `--images DIR`: every regular file of the folder (hidden ones and folders left
/// out) whose header is an image's, by file name. A name with a character a path segment may not
/// hold is served under a copy with those characters replaced by "_" (made unique), so a user's
/// folder of "IMG 0001.jpg" needs no renaming.
package enum ServedImages {
    /// The characters a served name keeps.
    static let nameCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")

    /// At most this many images are read (each held by the origin for the run).
    package static let maximumCount = 1000

    package static func load(folder: URL) throws(ServedImagesError) -> [ServedImage] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            throw ServedImagesError("--images: cannot read the folder \(folder.path): \(error.localizedDescription)")
        }
        var images: [ServedImage] = []
        var taken = Set<String>()
        for name in names where !name.hasPrefix(".") {
            let file = folder.appendingPathComponent(name)
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let body = try? Data(contentsOf: file)
            else { continue }
            let image = ServedImage(name: servedName(name, taken: taken), body: body)
            guard image.info != nil else { continue }
            taken.insert(image.name)
            images.append(image)
            guard images.count < maximumCount else { break }
        }
        guard !images.isEmpty else {
            throw ServedImagesError(
                "--images: \(folder.path) has no image the harness reads (JPEG, PNG, WebP, HEIC, AVIF files)"
            )
        }
        return images
    }

    /// `name` with every character outside `nameCharacters` replaced by "_", then made unique.
    static func servedName(_ name: String, taken: Set<String>) -> String {
        let safe = String(name.map { nameCharacters.contains($0) ? $0 : "_" })
        var candidate = safe
        var copy = 2
        while taken.contains(candidate) || candidate == "." || candidate == ".." {
            candidate = "\(copy)-\(safe)"
            copy += 1
        }
        return candidate
    }
}

/// `--images` names a folder the harness cannot use; the message says why.
package struct ServedImagesError: Error, CustomStringConvertible, Sendable {
    package var description: String
    init(_ description: String) { self.description = description }
}
