#include "gui/peak_panel.hpp"

#include "gui/simulation_controller.hpp"
#include "gui/text.hpp"
#include "simulator/analysis/analysis.hpp"
#include "simulator/trace/explain.hpp"

#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace gallocsim::gui {

namespace {

// One of the analysis' sentences as a paragraph's: a capital first, HTML-escaped.
QString sentence(const std::string& words) {
    QString text = qstr(words);
    if (!text.isEmpty()) {
        text[0] = text[0].toUpper();
    }
    return text.toHtmlEscaped();
}

} // namespace

PeakPanel::PeakPanel(SimulationController& controller, QWidget* parent)
    : LazyPanel(controller, parent), controller_(controller), text_(new QTextBrowser) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(text_);
    text_->setOpenLinks(false);
    // The live tensors' columns (name, op, split, bytes, how each ends, what it costs) stand
    // apart, so that one cell's words do not read on into the next.
    text_->document()->setDefaultStyleSheet(QStringLiteral("td { padding-right: 16px; padding-bottom: 2px; }"));
    connect(text_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        bool ok = false;
        const std::size_t index = url.fragment().toULongLong(&ok);
        if (ok) {
            controller_.go_to_peak(index);
        }
    });
}

void PeakPanel::rebuild() {
    if (!controller_.has_graph()) {
        text_->clear();
        return;
    }
    const Trace& trace = controller_.trace();
    const GraphLifetimes& lifetimes = controller_.lifetimes();
    const std::vector<BufferAnswer>& answers = controller_.why_answers();
    QString html;
    if (!controller_.splits().empty()) {
        html += tr("<p>ggml's scheduler cut this graph into %1.</p>").arg(qstr(splits_summary(trace, controller_.splits())).toHtmlEscaped());
    }
    for (std::size_t i = 0; i < answers.size(); ++i) {
        const BufferAnswer& answer = answers[i];
        const BufferPeak& peak = *answer.peak;
        const TraceBuffer& buffer = trace.buffer(peak.buffer_id);
        if (!controller_.timeline().has_plan()) {
            // A capture's alloc_graph that kept an earlier call's plan: its size was set there.
            html += tr("<h3>Buffer %1 (%2)</h3><p>This call planned nothing: it placed its tensors by a plan made "
                       "earlier (the Capture dock's note says which call); pick that call to see why the buffer is "
                       "this big.</p>")
                        .arg(peak.buffer_id)
                        .arg(qstr(buffer.type_name).toHtmlEscaped());
            continue;
        }
        const BufferWords words = buffer_words(trace, lifetimes, controller_.splits(), answer);
        html += "<h3>" + sentence(words.title) + "</h3>";
        if (!words.empty.empty()) {
            html += "<p>" + sentence(words.empty) + ".</p>";
            continue;
        }
        html += "<p>" + sentence(words.high_water) + ". " + tr("<a href=\"#%1\">Show it</a>").arg(i) + "</p>";
        // The bound before the details: what any plan needs and where, so nobody reads a hole
        // below as bytes to be won.
        for (const std::string* line : {&words.bound, &words.bound_at, &words.verdict}) {
            if (!line->empty()) {
                html += "<p>" + sentence(*line) + ".</p>";
            }
        }
        html += "<p>" + sentence(words.live) + "</p><table cellspacing=0>";
        for (const LiveTensorWords& live : words.live_tensors) {
            html += QStringLiteral("<tr><td><span style=\"background:%1\">&nbsp;&nbsp;</span> %2</td><td>%3</td><td>%4</td><td align=right>%5</td><td>%6</td><td>%7</td></tr>")
                        .arg(controller_.color(live.tensor).name(), qstr(trace.tensor(live.tensor).name).toHtmlEscaped(),
                             qstr(live.op), qstr(live.split), human_bytes(live.bytes), qstr(live.kept_by).toHtmlEscaped(),
                             qstr(live.without).toHtmlEscaped());
        }
        html += "</table><p>" + sentence(words.live_by_op) + "</p><p>" + sentence(words.live_by_layer) + "</p>";
        html += "<p>" + sentence(words.holes) + "</p><ul>";
        for (const HoleWords& hole : words.hole_list) {
            html += "<li>" + qstr(hole.title).toHtmlEscaped() + "<ul>";
            for (const std::string& line : hole.lines) {
                html += "<li>" + qstr(line).toHtmlEscaped() + "</li>";
            }
            html += QStringLiteral("</ul></li>");
        }
        html += QStringLiteral("</ul>");
    }
    text_->setHtml(html);
}

} // namespace gallocsim::gui
