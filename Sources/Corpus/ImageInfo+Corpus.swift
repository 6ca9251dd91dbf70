import BenchCore
import Imaging

extension ImageInfo {
    /// The chart's colour and the table's label: the format and the details that change what a
    /// decode holds ("jpeg progressive 4:2:0", "jpeg arithmetic 4:2:0", "png rgba interlaced",
    /// "png palette", "webp lossless").
    package var encodingLabel: String {
        var parts = [format.rawValue]
        switch format {
        case .jpeg:
            // Baseline is Huffman-coded by definition: an arithmetic-coded file is never "baseline".
            if progressive { parts.append("progressive") }
            if arithmeticCoding { parts.append("arithmetic") } else if !progressive { parts.append("baseline") }
            if let chromaSubsampling { parts.append(chromaSubsampling) }
        case .png:
            if palette {
                parts.append(hasAlpha ? "palette alpha" : "palette")
            }  // alpha: a tRNS chunk
            else {
                parts.append(hasAlpha ? "rgba" : "rgb")
            }
            if progressive { parts.append("interlaced") }
            if bitDepth != 8 { parts.append("\(bitDepth)-bit") }
        case .webp:
            if let lossless { parts.append(lossless ? "lossless" : "lossy") }
            if hasAlpha { parts.append("alpha") }
        case .heic, .avif:
            if hasAlpha { parts.append("alpha") }
            if bitDepth != 8 { parts.append("\(bitDepth)-bit") }
        }
        return parts.joined(separator: " ")
    }
}
