import CJPEGCodec

/// The parameters of a generated test image. The default is the article's photo:
/// 6000 x 4000, baseline JPEG, about 13.1 MB.
public struct FixtureSpec: Codable, Hashable, Sendable {
    package var width = 6000
    package var height = 4000
    /// 90 with the default grain gives 13,108,402 bytes at 6000 x 4000 (libjpeg-turbo 2.1.5).
    /// For the lossy encodings (JPEG, WebP lossy, HEIC, AVIF); PNG and WebP lossless ignore it.
    package var quality = 90
    package var encoding = FixtureEncoding.jpeg
    package var seed: UInt64 = 1

    package init(
        width: Int = 6000,
        height: Int = 4000,
        quality: Int = 90,
        progressive: Bool = false,
        seed: UInt64 = 1,
        encoding: FixtureEncoding? = nil
    ) {
        self.width = width
        self.height = height
        self.quality = quality
        self.encoding = encoding ?? (progressive ? .jpegProgressive : .jpeg)
        self.seed = seed
    }

    /// A progressive (or Adam7-interlaced) encoding.
    package var progressive: Bool { encoding.isProgressive }

    /// The article's image.
    public static let article = FixtureSpec()
    /// The article's picture as a progressive JPEG (libjpeg's default scan script, 4:2:0).
    public static let articleProgressive = FixtureSpec(encoding: .jpegProgressive)

    /// Bump whenever the pixels or the encoding change, so stale cached files are not reused.
    package static let generatorVersion = 1

    /// Amplitude of the per-pixel grain, tuned so `article` is 13.1 MB (see fixture.c).
    package static let grainAmplitude = 57

    /// Stable across runs and machines (FNV-1a, not Swift's seeded Hasher) over every
    /// parameter, the generator version and the encoder's version: another libjpeg (libpng,
    /// libwebp, libheif) may encode the same pixels to different bytes.
    package var cacheKey: String {
        let canonical =
            "fixture;v\(Self.generatorVersion);grain\(Self.grainAmplitude);\(FixtureEncoders.version(of: encoding));"
            + "\(width)x\(height);q\(quality);\(encodingKey);seed\(seed)"
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in canonical.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// e.g. "fixture-6000x4000-q90-baseline-s1-1a2b3c4d.jpg", "fixture-6000x4000-q90-png-rgba-s1-....png"
    package var fileName: String {
        "fixture-\(width)x\(height)-q\(quality)-\(encodingKey)-s\(seed)-\(cacheKey.prefix(8)).\(encoding.fileExtension)"
    }

    /// The JPEG names of before there were encodings, so cached and committed names stay.
    private var encodingKey: String {
        switch encoding {
        case .jpeg: return "baseline"
        case .jpegProgressive: return "progressive"
        default: return encoding.rawValue
        }
    }
}
