"""The recommended models for people: languages, quantizations, the speed to expect here and a fits / runs-slowly badge."""

from __future__ import annotations

import html
import math

from PySide6.QtCore import QCoreApplication, QLocale, Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QWidget

from companion.llm import speed
from companion.llm.catalog import CURATED, QUANT_NOTES, CuratedModel, fits, recommend
from companion.llm.hardware import Capabilities

FITS, SLOW, TOO_BIG = "fits", "slow", "too-big"
_LANGUAGES = {"en": "English", "zh": "Chinese"}
_BADGE_COLORS = {FITS: "#1b7a3a", SLOW: "#a06000", TOO_BIG: "#b00020"}


def _tr(text: str) -> str:
    return QCoreApplication.translate("Catalog", text)


def good_for(model: CuratedModel) -> str:
    """The model's one-line "good for", in the interface language (the catalog holds English)."""
    return _tr(model.good_for)


def describe_model(model: CuratedModel) -> str:
    """One line for a list of models: name, download size, RAM, good for (in the interface language)."""
    return (_tr("%1: %2 GB download, needs about %3 GB RAM. %4")
            .replace("%1", model.label).replace("%2", f"{model.size_gb:.1f}")
            .replace("%3", str(math.ceil(model.ram_gb))).replace("%4", good_for(model)))


def chinese_ui() -> bool:
    """Whether the interface speaks Chinese (the default locale the app set from the system)."""
    return QLocale().language() == QLocale.Language.Chinese


def languages_text(model: CuratedModel) -> str:
    return _tr(", ").join(_tr(_LANGUAGES.get(code, code)) for code in model.languages)


def speed_text(tps: float) -> str:
    """"about 6 words a second here" (in Chinese: characters a second)."""
    rate = speed.words_per_s(tps, chinese_ui())
    shown = f"{rate:.0f}" if rate >= 1.5 else f"{rate:.1f}"
    return _tr("about %1 words a second here").replace("%1", shown)


def badge(model: CuratedModel, caps: Capabilities, bench: speed.Benchmark) -> str:
    if not fits(model, caps):
        return TOO_BIG
    return FITS if speed.comfortable(speed.tokens_per_s(model.size_bytes, bench, caps)) else SLOW


def badge_text(kind: str) -> str:
    return {FITS: _tr("Fits this computer"), SLOW: _tr("Runs slowly here"), TOO_BIG: _tr("Too big for this computer")}[kind]


def quant_note(quant: str) -> str:
    return _tr(QUANT_NOTES.get(quant, ""))


class CatalogPicker(QWidget):
    """Model and quantization lists with what to expect here; emits `chosen` (a CuratedModel, or None for "other")."""

    chosen = Signal(object)

    def __init__(self, caps: Capabilities, bench: speed.Benchmark, chinese: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caps, self.bench = caps, bench
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.models = QComboBox()
        self.models.setObjectName("catalogModels")
        self.models.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.models.setMinimumContentsLength(50)  # long descriptions must not widen the dialog
        self.best = recommend(caps, chinese, bench)
        for model in CURATED:
            text = f"{describe_model(model)} [{badge_text(badge(model, caps, bench))}]"
            if model == self.best:
                text = _tr("Recommended for this computer: %1").replace("%1", text)
            self.models.addItem(text, model)
        self.models.addItem(_tr("Other: enter a repository and a file name"), None)
        self.quants = QComboBox()
        self.quants.setObjectName("catalogQuants")
        self.details = QLabel()
        self.details.setObjectName("catalogDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        form.addRow(_tr("Model:"), self.models)
        form.addRow(_tr("Quantization:"), self.quants)
        form.addRow(self.details)
        self.models.currentIndexChanged.connect(self._model_chosen)
        self.quants.currentIndexChanged.connect(self._quant_chosen)
        self.models.setCurrentIndex(CURATED.index(self.best) if self.best is not None else 0)
        self._model_chosen(self.models.currentIndex())

    def current(self) -> CuratedModel | None:
        model = self.quants.currentData()
        return model if self.models.currentData() is not None else None

    def _model_chosen(self, index: int) -> None:
        model: CuratedModel | None = self.models.itemData(index)
        self.quants.blockSignals(True)
        self.quants.clear()
        if model is not None:
            for variant in model.variants():
                kind = badge(variant, self.caps, self.bench)
                self.quants.addItem(_tr("%1: %2 GB, %3 [%4]").replace("%1", variant.quant)
                                    .replace("%2", f"{variant.size_gb:.1f}").replace("%3", quant_note(variant.quant))
                                    .replace("%4", badge_text(kind)), variant)
                if variant.quant == model.quant:
                    self.quants.setCurrentIndex(self.quants.count() - 1)
        self.quants.setEnabled(model is not None)
        self.quants.blockSignals(False)
        self._quant_chosen(self.quants.currentIndex())

    def _quant_chosen(self, _index: int) -> None:
        model = self.current()
        if model is None:
            self.details.setText("")
            self.chosen.emit(None)
            return
        kind = badge(model, self.caps, self.bench)
        tps = speed.tokens_per_s(model.size_bytes, self.bench, self.caps)
        parts = [_tr("Languages: %1").replace("%1", languages_text(model)), speed_text(tps)]
        if not self.bench.measured:
            parts[-1] += " " + _tr("(a first guess; measured after the built-in model has run)")
        self.details.setText(html.escape(good_for(model)) + "<br>" + " · ".join(html.escape(p) for p in parts)
                             + f" · <b style='color:{_BADGE_COLORS[kind]}'>{html.escape(badge_text(kind))}</b>")
        self.chosen.emit(model)
