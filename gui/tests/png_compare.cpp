// png_compare EXPECTED ACTUAL: whether two screenshots show the same picture, for
// docs/regenerate.sh --check. PNG bytes differ between encoders and runs even where the pixels do
// not, so the pixels are compared: the sizes must be equal, and a pixel counts as different when
// one of its channels differs by more than kTolerance of 255 (antialiasing and colour rounding
// stay below it; a glyph, a line or a block of another colour does not). The pictures match when
// at most one pixel in kAllowedOneIn differs (13 in a 1440 x 900 window: less than a character).
// Exit 0: they match; 1: they differ (what and where is printed); 2: a file cannot be read.
#include <QCoreApplication>
#include <QImage>
#include <QRect>
#include <QTextStream>

#include <cstdlib>

namespace {

constexpr int kTolerance = 48;
constexpr qsizetype kAllowedOneIn = 100000;

bool differs(QRgb a, QRgb b) {
    return std::abs(qRed(a) - qRed(b)) > kTolerance || std::abs(qGreen(a) - qGreen(b)) > kTolerance ||
           std::abs(qBlue(a) - qBlue(b)) > kTolerance || std::abs(qAlpha(a) - qAlpha(b)) > kTolerance;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QTextStream err(stderr);
    const QStringList files = QCoreApplication::arguments().mid(1);
    if (files.size() != 2) {
        err << "usage: png_compare EXPECTED.png ACTUAL.png\n";
        return 2;
    }
    QImage images[2];
    for (int i = 0; i < 2; ++i) {
        if (!images[i].load(files[i], "PNG")) {
            err << files[i] << ": not a PNG that can be read\n";
            return 2;
        }
        images[i] = images[i].convertToFormat(QImage::Format_ARGB32);
    }
    const QImage& expected = images[0];
    const QImage& actual = images[1];
    if (expected.size() != actual.size()) {
        err << files[0] << " is " << expected.width() << "x" << expected.height() << " pixels, " << files[1] << " "
            << actual.width() << "x" << actual.height() << "\n";
        return 1;
    }
    qsizetype count = 0;
    QRect where;
    for (int y = 0; y < expected.height(); ++y) {
        const auto* a = reinterpret_cast<const QRgb*>(expected.constScanLine(y));
        const auto* b = reinterpret_cast<const QRgb*>(actual.constScanLine(y));
        for (int x = 0; x < expected.width(); ++x) {
            if (differs(a[x], b[x])) {
                ++count;
                where |= QRect(x, y, 1, 1);
            }
        }
    }
    const qsizetype allowed = qsizetype{expected.width()} * expected.height() / kAllowedOneIn;
    if (count > allowed) {
        err << files[0] << ": " << count << " pixels differ (at most " << allowed << " may), within x " << where.left()
            << ".." << where.right() << ", y " << where.top() << ".." << where.bottom() << "\n";
        return 1;
    }
    return 0;
}
