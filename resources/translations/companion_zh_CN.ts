<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
  <context>
    <name>About</name>
    <message>
      <location filename="../../companion/ui/about.py" line="25" />
      <source>Companion</source>
      <translation>Companion</translation>
    </message>
    <message>
      <location filename="../../companion/ui/about.py" line="28" />
      <source>Memory folder</source>
      <translation>记忆文件夹</translation>
    </message>
    <message>
      <location filename="../../companion/ui/about.py" line="29" />
      <source>Settings</source>
      <translation>设置</translation>
    </message>
    <message>
      <location filename="../../companion/ui/about.py" line="30" />
      <source>App state and history</source>
      <translation>应用状态与历史</translation>
    </message>
    <message>
      <location filename="../../companion/ui/about.py" line="31" />
      <source>Models</source>
      <translation>模型</translation>
    </message>
    <message>
      <location filename="../../companion/ui/about.py" line="34" />
      <source>An offline companion with a memory you own. Everything stays on this computer.</source>
      <translation>一个离线的陪伴助手，记忆归你所有。一切都保存在这台电脑上。</translation>
    </message>
    <message>
      <source>Model engine</source>
      <translation>模型引擎</translation>
    </message>
  </context>
  <context>
    <name>App</name>
    <message>
      <location filename="../../companion/ui/app.py" line="104" />
      <source>Companion is already running</source>
      <translation>Companion 已在运行</translation>
    </message>
    <message>
      <location filename="../../companion/ui/app.py" line="107" />
      <source>Companion cannot start</source>
      <translation>Companion 无法启动</translation>
    </message>
    <message>
      <location filename="../../companion/ui/app.py" line="126" />
      <source>Companion stopped unexpectedly</source>
      <translation>Companion 意外退出</translation>
    </message>
    <message>
      <location filename="../../companion/ui/app.py" line="127" />
      <source>The last session ended with a crash. Your conversation and memory are saved. The details are in %1.</source>
      <translation>上次运行以崩溃结束。你的对话和记忆都已保存。详细信息在 %1。</translation>
    </message>
  </context>
  <context>
    <name>Composer</name>
    <message>
      <location filename="../../companion/ui/composer.py" line="33" />
      <source>Write a message… (Enter sends, Shift+Enter for a new line)</source>
      <translation>输入消息…（回车发送，Shift+回车换行）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/composer.py" line="39" />
      <location filename="../../companion/ui/composer.py" line="66" />
      <source>Send</source>
      <translation>发送</translation>
    </message>
    <message>
      <location filename="../../companion/ui/composer.py" line="43" />
      <source>Regenerate</source>
      <translation>重新生成</translation>
    </message>
    <message>
      <location filename="../../companion/ui/composer.py" line="44" />
      <source>Answer the last message again (the old reply stays in the log)</source>
      <translation>重新回答上一条消息（旧回复仍保留在日志中）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/composer.py" line="66" />
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <location filename="../../companion/ui/composer.py" line="67" />
      <source>Stop the reply (Esc)</source>
      <translation>停止回复 (Esc)</translation>
    </message>
    <message>
      <location filename="../../companion/ui/composer.py" line="67" />
      <source>Send (Enter)</source>
      <translation>发送（回车）</translation>
    </message>
  </context>
  <context>
    <name>ExportDialog</name>
    <message>
      <location filename="../../companion/ui/portability.py" line="187" />
      <source>Browse…</source>
      <translation>浏览…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="190" />
      <source>Saves the memory as an Agent Skill (a folder named companion-memory) that other agents can load. Your memory here is not changed.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="194" />
      <source>Save as a .zip file</source>
      <translation>另存为 .zip 文件</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="195" />
      <source>Leave out the day logs (raw conversation)</source>
      <translation>不包含每日日志（原始对话）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="196" />
      <source>Mask personal data: emails, phone numbers, card and IBAN numbers, secrets</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="198" />
      <source>Export into folder:</source>
      <translation>导出到文件夹：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="204" />
      <source>Export into folder</source>
      <translation>导出到文件夹</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="218" />
      <source>Choose a folder to export into.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="225" />
      <source>Exported to {path}: {files} files</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="227" />
      <source>, {days} days of conversation</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="229" />
      <source>, {count} values masked</source>
      <translation type="unfinished" />
    </message>
    <message>
      <source>Include what was said while memory was paused ("Don't remember this")</source>
      <translation>包括记忆暂停期间（“不要记住这些”）说的话</translation>
    </message>
    <message>
      <source>, {count} private records left out</source>
      <translation>，{count} 条私密记录未导出</translation>
    </message>
  </context>
  <context>
    <name>HistoryDialog</name>
    <message>
      <location filename="../../companion/ui/history_dialog.py" line="48" />
      <source>History of %1</source>
      <translation>%1 的历史版本</translation>
    </message>
    <message>
      <location filename="../../companion/ui/history_dialog.py" line="51" />
      <source>Each version is what the file held before the change listed. The diff shows what restoring it would change.</source>
      <translation>每个版本是文件在所列修改之前的内容。差异显示恢复它会带来的变化。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/history_dialog.py" line="64" />
      <source>Restore this version</source>
      <translation>恢复此版本</translation>
    </message>
    <message>
      <location filename="../../companion/ui/history_dialog.py" line="77" />
      <source>%1 — before a change by %2</source>
      <translation>%1 — %2 修改之前</translation>
    </message>
    <message>
      <location filename="../../companion/ui/history_dialog.py" line="82" />
      <source>No earlier versions yet.</source>
      <translation>还没有更早的版本。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/history_dialog.py" line="94" />
      <source>now</source>
      <translation>当前</translation>
    </message>
    <message>
      <location filename="../../companion/ui/history_dialog.py" line="104" />
      <source>Restore failed</source>
      <translation>恢复失败</translation>
    </message>
    <message>
      <source>you</source>
      <translation>你</translation>
    </message>
    <message>
      <source>chat</source>
      <translation>对话</translation>
    </message>
    <message>
      <source>chat tool</source>
      <translation>对话工具</translation>
    </message>
    <message>
      <source>sleep job</source>
      <translation>睡眠任务</translation>
    </message>
    <message>
      <source>auto-learn</source>
      <translation>自动学习</translation>
    </message>
    <message>
      <source>restore</source>
      <translation>恢复</translation>
    </message>
    <message>
      <source>import</source>
      <translation>导入</translation>
    </message>
    <message>
      <source>you, in the editor</source>
      <translation>你（在编辑器中）</translation>
    </message>
    <message>
      <source>“remember”</source>
      <translation>“记住”</translation>
    </message>
    <message>
      <source>“forget”</source>
      <translation>“忘记”</translation>
    </message>
    <message>
      <source>reminder</source>
      <translation>提醒</translation>
    </message>
    <message>
      <source>first conversation</source>
      <translation>初次对话</translation>
    </message>
    <message>
      <source>chat tool (approved)</source>
      <translation>对话工具（已批准）</translation>
    </message>
    <message>
      <source>another agent</source>
      <translation>其他智能体</translation>
    </message>
    <message>
      <source>migration</source>
      <translation>迁移</translation>
    </message>
    <message>
      <source>Now</source>
      <translation>现在</translation>
    </message>
    <message>
      <source>That version: before the change by %1 (%2)</source>
      <translation>那个版本：%1 修改之前（%2）</translation>
    </message>
  </context>
  <context>
    <name>ImportDialog</name>
    <message>
      <location filename="../../companion/ui/portability.py" line="246" />
      <source>A companion-memory folder or .zip, or an older file</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="247" />
      <source>Folder…</source>
      <translation>文件夹…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="249" />
      <source>File…</source>
      <translation>文件…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="253" />
      <source>Merge: add what is new, skip what is already known</source>
      <translation>合并：添加新内容，跳过已知内容</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="254" />
      <source>Replace: the memory becomes the imported one</source>
      <translation>替换：记忆变为导入的内容</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="259" />
      <source>A backup of the current memory is saved before anything changes.</source>
      <translation>在任何更改之前，会先备份当前记忆。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="261" />
      <source>Import from:</source>
      <translation>导入自：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="271" />
      <source>Import from folder</source>
      <translation>从文件夹导入</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="277" />
      <source>Import from file</source>
      <translation>从文件导入</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="277" />
      <source>Memory or chat export (*.zip *.json *.jsonl);;All files (*)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="292" />
      <source>A memory to import (SOUL.md / USER.md / MEMORY.md, digests and day logs).</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="296" />
      <source>Older format: {what}.</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="298" />
      <source>Nothing Companion can import was found here.</source>
      <translation>这里没有可导入的内容。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="303" />
      <source>This path does not exist.</source>
      <translation>此路径不存在。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="315" />
      <source>Choose a folder, .zip or file to import.</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>JournalView</name>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="27" />
      <source>Day logs</source>
      <translation>每日日志</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="28" />
      <source>Day digests</source>
      <translation>每日摘要</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="28" />
      <source>Week digests</source>
      <translation>每周摘要</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="29" />
      <source>Month digests</source>
      <translation>每月摘要</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="29" />
      <source>Year digests</source>
      <translation>每年摘要</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="67" />
      <source>Nothing here yet.</source>
      <translation>这里还没有内容。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="80" />
      <source>You</source>
      <translation>你</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="80" />
      <source>Companion</source>
      <translation>Companion</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="80" />
      <source>Tool</source>
      <translation>工具</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="81" />
      <source>Event</source>
      <translation>事件</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="86" />
      <source>regenerated</source>
      <translation>重新生成</translation>
    </message>
    <message>
      <location filename="../../companion/ui/journal_view.py" line="90" />
      <source>Empty day.</source>
      <translation>这一天没有记录。</translation>
    </message>
    <message>
      <source>private</source>
      <translation>私密</translation>
    </message>
    <message>
      <source>The day log of %1 is not here (it may have been moved or deleted).</source>
      <translation>找不到 %1 的日志（可能已被移动或删除）。</translation>
    </message>
  </context>
  <context>
    <name>MainWindow</name>
    <message>
      <location filename="../../companion/ui/main_window.py" line="439" />
      <source>{device} · {n}/{total} layers</source>
      <translation>{device} · {n}/{total} 层</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="350" />
      <source>SmolLM2 135M (built-in)</source>
      <translation>SmolLM2 135M（内置）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="67" />
      <source>Companion</source>
      <translation>Companion</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="128" />
      <source>Copied.</source>
      <translation>已复制。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="151" />
      <source>Find in the conversation (Enter: older match, Shift+Enter: newer)</source>
      <translation>在对话中查找（回车：更早的匹配，Shift+回车：更新的匹配）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="167" />
      <location filename="../../companion/ui/main_window.py" line="299" />
      <source>No model</source>
      <translation>无模型</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="192" />
      <source>Open memory folder</source>
      <translation>打开记忆文件夹</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="194" />
      <source>&amp;Quit</source>
      <translation>退出(&amp;Q)</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="197" />
      <source>&amp;Save memory file</source>
      <translation>保存记忆文件(&amp;S)</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="199" />
      <source>&amp;History…</source>
      <translation>历史版本(&amp;H)…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="200" />
      <source>Show memory &amp;pane</source>
      <translation>显示记忆面板(&amp;P)</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="203" />
      <source>&amp;Find in conversation…</source>
      <translation>在对话中查找(&amp;F)…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="205" />
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="209" />
      <source>&amp;Preferences…</source>
      <translation>偏好设置(&amp;P)…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="211" />
      <source>&amp;About Companion</source>
      <translation>关于 Companion(&amp;A)</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="228" />
      <source>The model is still loading; your message will be answered when it is ready.</source>
      <translation>模型仍在加载；就绪后会回复你的消息。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="253" />
      <source>%1 tok/s</source>
      <translation>%1 词元/秒</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="268" />
      <source>Hi! I'm your new companion. I live on this computer and keep what we talk about in a memory you can read and edit on the right.

What should I call you? And how do you like to talk: short and to the point, or relaxed and chatty?</source>
      <translation>你好！我是你的新伙伴，住在这台电脑上，会把我们聊过的内容记在右边的记忆里，你可以随时查看和编辑。

我该怎么称呼你？你喜欢怎样聊天：简短直接，还是轻松随意？</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="283" />
      <source>Loading model…</source>
      <translation>正在加载模型…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="295" />
      <source>Model ready.</source>
      <translation>模型已就绪。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="302" />
      <source>The model could not be loaded: %1
You can still read the conversation and edit your memory. Choose another model file or lower the GPU layers in Settings, then reload.</source>
      <translation>无法加载模型：%1
你仍然可以阅读对话和编辑记忆。请在设置中选择其他模型文件或减少 GPU 层数，然后重新加载。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="306" />
      <source>Model not loaded.</source>
      <translation>模型未加载。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="325" />
      <source>Not found in the loaded days</source>
      <translation>在已加载的日期中未找到</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="340" />
      <source>About Companion</source>
      <translation>关于 Companion</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="371" />
      <source>Unsaved memory edits</source>
      <translation>记忆有未保存的修改</translation>
    </message>
    <message>
      <location filename="../../companion/ui/main_window.py" line="372" />
      <source>You have unsaved edits in %1. Save them before quitting?</source>
      <translation>%1 中有未保存的修改。退出前要保存吗？</translation>
    </message>
    <message>
      <source>&amp;File</source>
      <translation>文件(&amp;F)</translation>
    </message>
    <message>
      <source>&amp;Memory</source>
      <translation>记忆(&amp;M)</translation>
    </message>
    <message>
      <source>&amp;Settings</source>
      <translation>设置(&amp;S)</translation>
    </message>
    <message>
      <source>&amp;Help</source>
      <translation>帮助(&amp;H)</translation>
    </message>
    <message>
      <source>&amp;Tools</source>
      <translation>工具(&amp;T)</translation>
    </message>
    <message>
      <source>Newer match (Shift+Enter)</source>
      <translation>较新的匹配（Shift+Enter）</translation>
    </message>
    <message>
      <source>Older match (Enter)</source>
      <translation>较早的匹配（Enter）</translation>
    </message>
    <message>
      <source>Close (Esc)</source>
      <translation>关闭（Esc）</translation>
    </message>
    <message>
      <source>Editing your last message: sending it replaces the message and its reply.</source>
      <translation>正在编辑你的上一条消息：发送后会替换这条消息和它的回复。</translation>
    </message>
    <message>
      <source>Message deleted: it is left out of the conversation and of what I learn.</source>
      <translation>消息已删除：它不再出现在对话中，也不会被我学习。</translation>
    </message>
    <message>
      <source>Skipped a damaged line in the day log %1, line %2 (%3). The rest of the day is shown; the file is left as it is.</source>
      <translation>已跳过日志 %1 第 %2 行的损坏内容（%3）。这一天的其余内容照常显示，文件保持原样。</translation>
    </message>
    <message>
      <source>Not found</source>
      <translation>未找到</translation>
    </message>
    <message>
      <source>%1 of %2</source>
      <translation>第 %1 个，共 %2 个</translation>
    </message>
  </context>
  <context>
    <name>MemoryEditor</name>
    <message>
      <source>Save this text?</source>
      <translation>保存这段文字？</translation>
    </message>
    <message>
      <source>Companion would not store this itself: %1.</source>
      <translation>Companion 自己不会保存这段内容：%1。</translation>
    </message>
    <message>
      <source>Everything in %1 goes into every prompt of the model. Save it anyway, or go back and change it?</source>
      <translation>%1 里的所有内容都会进入模型的每一次提示。仍然保存，还是返回修改？</translation>
    </message>
    <message>
      <source>Save anyway</source>
      <translation>仍然保存</translation>
    </message>
    <message>
      <source>Not saved: %1.</source>
      <translation>未保存：%1。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="95" />
      <source>Save</source>
      <translation>保存</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="96" />
      <source>Save (Ctrl+S)</source>
      <translation>保存 (Ctrl+S)</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="99" />
      <source>Preview</source>
      <translation>预览</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="103" />
      <source>History…</source>
      <translation>历史版本…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="127" />
      <source>Unsaved changes</source>
      <translation>有未保存的修改</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="152" />
      <location filename="../../companion/ui/memory_editor.py" line="160" />
      <source>Not saved: %1</source>
      <translation>未保存：%1</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="167" />
      <source>Saved</source>
      <translation>已保存</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="184" />
      <source>Reloaded (changed on disk)</source>
      <translation>已重新载入（磁盘上的文件已更改）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="195" />
      <source>Reload</source>
      <translation>重新载入</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="196" />
      <source>Discard your edits and show the file as it is now</source>
      <translation>放弃你的修改，显示文件当前内容</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="198" />
      <source>Keep mine</source>
      <translation>保留我的</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="199" />
      <source>Keep your edits; saving replaces the other change (it stays in History)</source>
      <translation>保留你的修改；保存时会替换另一处修改（它仍保存在历史版本中）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="201" />
      <source>Compare</source>
      <translation>比较</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="205" />
      <source>%1 changed on disk while you were editing it (a memory tool, the sleep job or another editor).</source>
      <translation>%1 在你编辑时已在磁盘上被修改（记忆工具、睡眠任务或其他编辑器）。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="220" />
      <source>%1: on disk vs. your edits</source>
      <translation>%1：磁盘上的版本与你的修改</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="221" />
      <source>on disk</source>
      <translation>磁盘上</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="221" />
      <source>your edits</source>
      <translation>你的修改</translation>
    </message>
    <message>
      <source>Triggers and settings</source>
      <translation>触发器和设置</translation>
    </message>
    <message>
      <source>The file's frontmatter (YAML): triggers such as the daily greeting, and settings. Edit with care; saving checks it.</source>
      <translation>文件开头的元数据（YAML）：例如每日问候之类的触发器，以及设置。请小心编辑；保存时会检查格式。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="175" />
      <source>Edit</source>
      <translation>编辑</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="175" />
      <source>The text only</source>
      <translation>只显示原文</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="175" />
      <source>Both</source>
      <translation>并排</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="175" />
      <source>The text and, beside it, the file rendered: entries and citations as links</source>
      <translation>原文和旁边渲染后的文件：条目和出处都是链接</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="175" />
      <source>Read</source>
      <translation>阅读</translation>
    </message>
    <message>
      <location filename="../../companion/ui/memory_editor.py" line="175" />
      <source>The file rendered only: entries and citations as links</source>
      <translation>只显示渲染后的文件：条目和出处都是链接</translation>
    </message>
  </context>
  <context>
    <name>MemoryPane</name>
    <message>
      <location filename="../../companion/ui/memory_pane.py" line="42" />
      <source>Days &amp;&amp; digests</source>
      <translation>日志与摘要</translation>
    </message>
  </context>
  <context>
    <name>MessageWidget</name>
    <message>
      <location filename="../../companion/ui/chat_view.py" line="167" />
      <location filename="../../companion/ui/message_widget.py" line="82" />
      <source>stopped</source>
      <translation>已停止</translation>
    </message>
    <message>
      <location filename="../../companion/ui/message_widget.py" line="46" />
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <location filename="../../companion/ui/message_widget.py" line="47" />
      <source>Copy this message</source>
      <translation>复制这条消息</translation>
    </message>
    <message>
      <location filename="../../companion/ui/message_widget.py" line="67" />
      <source>You</source>
      <translation>你</translation>
    </message>
    <message>
      <location filename="../../companion/ui/message_widget.py" line="67" />
      <source>Companion</source>
      <translation>Companion</translation>
    </message>
    <message>
      <location filename="../../companion/ui/message_widget.py" line="108" />
      <source>replaced</source>
      <translation>已被替换</translation>
    </message>
    <message numerus="yes">
      <source>Recalled %n memories</source>
      <translation>
        <numerusform>回想起 %n 条记忆</numerusform>
      </translation>
    </message>
    <message>
      <source>private: not remembered</source>
      <translation>私密：不会被记住</translation>
    </message>
    <message>
      <source>Recalled 1 memory</source>
      <translation>回想起 1 条记忆</translation>
    </message>
    <message>
      <source>Edit</source>
      <translation>编辑</translation>
    </message>
    <message>
      <source>Edit this message and send it again (its reply is replaced)</source>
      <translation>编辑这条消息并重新发送（它的回复会被替换）</translation>
    </message>
    <message>
      <source>More</source>
      <translation>更多</translation>
    </message>
    <message>
      <source>Delete message</source>
      <translation>删除消息</translation>
    </message>
    <message>
      <source>Take this message back: it leaves the conversation and is not learned from</source>
      <translation>撤回这条消息：它会离开对话，也不会被学习</translation>
    </message>
    <message>
      <source>thinking…</source>
      <translation>思考中……</translation>
    </message>
    <message>
      <source>Earlier version of this reply</source>
      <translation>这条回复的上一个版本</translation>
    </message>
    <message>
      <source>Later version of this reply</source>
      <translation>这条回复的下一个版本</translation>
    </message>
  </context>
  <context>
    <name>ModelDialog</name>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="271" />
      <source>{name} is the processor behind a graphics interface, no faster than the CPU; Auto runs on the CPU.</source>
      <translation>{name} 是以显卡接口出现的处理器，不比 CPU 快；“自动”会在 CPU 上运行。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="97" />
      <source>Model</source>
      <translation>模型</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="127" />
      <source>Where the model runs</source>
      <translation>模型运行位置</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="129" />
      <source>On this computer (a GGUF file)</source>
      <translation>在这台电脑上（GGUF 文件）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="130" />
      <source>On a model server (OpenAI-compatible: llama-server, Ollama, LM Studio, vLLM)</source>
      <translation>在模型服务器上（兼容 OpenAI：llama-server、Ollama、LM Studio、vLLM）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="141" />
      <source>Models on this computer</source>
      <translation>本机上的模型</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="156" />
      <source>Add file…</source>
      <translation>添加文件…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="158" />
      <source>Use selected</source>
      <translation>使用所选</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="160" />
      <source>Remove</source>
      <translation>移除</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="169" />
      <source>Download from Hugging Face</source>
      <translation>从 Hugging Face 下载</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="174" />
      <source>Other: enter a repository and a file name</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="176" />
      <source>Model:</source>
      <translation>模型：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="181" />
      <source>Repository:</source>
      <translation>仓库：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="182" />
      <source>File:</source>
      <translation>文件：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="186" />
      <source>Download</source>
      <translation>下载</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="188" />
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="199" />
      <source>Performance</source>
      <translation>性能</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="203" />
      <source>GPU:</source>
      <translation>GPU：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="220" />
      <source>GPU layers:</source>
      <translation>GPU 层数：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="223" />
      <source>Auto ({n} physical cores)</source>
      <translation>自动（{n} 个物理核心）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="225" />
      <source>CPU threads:</source>
      <translation>CPU 线程数：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="231" />
      <location filename="../../companion/ui/model_settings.py" line="262" />
      <source>Context size (tokens):</source>
      <translation>上下文长度（词元）：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="235" />
      <source>Memory needed:</source>
      <translation>所需内存：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="239" />
      <source>Model server</source>
      <translation>模型服务器</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="244" />
      <source>empty: the first model the server lists</source>
      <translation>留空：使用服务器列出的第一个模型</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="247" />
      <source>optional; kept in {where}</source>
      <translation>可选；保存在{where}</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="252" />
      <source>Base URL:</source>
      <translation>服务器地址：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="253" />
      <source>Model name:</source>
      <translation>模型名称：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="254" />
      <source>API key:</source>
      <translation>API 密钥：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="255" />
      <source>Timeout:</source>
      <translation>超时：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="259" />
      <source>Ask the server (else 4096)</source>
      <translation>询问服务器（否则为 4096）</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="261" />
      <source>The context size the server runs the model with; prompts are kept within it.</source>
      <translation>服务器运行模型时使用的上下文长度；提示词会控制在这个长度之内。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="264" />
      <source>Test connection</source>
      <translation>测试连接</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="272" />
      <source>Only the prompt is sent to the server; your memory stays on this computer.</source>
      <translation>只有提示词会发送到服务器；你的记忆留在这台电脑上。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="325" />
      <source>on the CPU</source>
      <translation>在 CPU 上</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="325" />
      <source>{n}/{total} layers on the GPU</source>
      <translation>{n}/{total} 层在 GPU 上</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="327" />
      <source>{need} with a {ctx}-token context, {where}.</source>
      <translation>上下文 {ctx} 个词元时需要{need}，{where}。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="332" />
      <source>{free:.1f} GB RAM available.</source>
      <translation>可用内存 {free:.1f} GB。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="344" />
      <source>Add a GGUF model</source>
      <translation>添加 GGUF 模型</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="344" />
      <source>GGUF models (*.gguf);;All files (*)</source>
      <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="386" />
      <source>Delete model</source>
      <translation>删除模型</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="387" />
      <source>{name} is stored in Companion's models folder. Delete the file ({size})?</source>
      <translation>{name} 保存在 Companion 的模型文件夹中。要删除这个文件（{size}）吗？</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="413" />
      <source>Enter the repository (owner/name) and the .gguf file name.</source>
      <translation>请输入仓库（所有者/名称）和 .gguf 文件名。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="425" />
      <source>Downloaded {name}; checksum verified.</source>
      <translation>已下载 {name}；校验和已核对。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="438" />
      <location filename="../../companion/ui/model_settings.py" line="528" />
      <source>Wait for the current copy or download to finish, or stop it.</source>
      <translation>请等待当前的复制或下载完成，或者先停止它。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="482" />
      <source>Connecting…</source>
      <translation>正在连接…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="489" />
      <source>Connected: {model}, context {ctx} tokens.</source>
      <translation>已连接：{model}，上下文 {ctx} 个词元。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="501" />
      <source>Enter the server's address, e.g. http://127.0.0.1:8080/v1</source>
      <translation>请输入服务器地址，例如 http://127.0.0.1:8080/v1</translation>
    </message>
    <message>
      <source>Downloaded {name}; the Hub sent no checksum, so only its size and header were checked.</source>
      <translation>已下载 {name}；Hub 没有提供校验和，因此只检查了文件大小和文件头。</translation>
    </message>
    <message>
      <source>Recommended for this computer: %1</source>
      <translation>推荐这台电脑使用：%1</translation>
    </message>
    <message>
      <source>Download a model</source>
      <translation>下载模型</translation>
    </message>
    <message>
      <source>From:</source>
      <translation>来源：</translation>
    </message>
    <message>
      <source>Device:</source>
      <translation>设备：</translation>
    </message>
    <message>
      <source> layers</source>
      <translation> 层</translation>
    </message>
    <message>
      <source>Run on:</source>
      <translation>运行于：</translation>
    </message>
    <message>
      <source>now: on the CPU</source>
      <translation>当前：在 CPU 上运行</translation>
    </message>
    <message>
      <source>CPU only (this llama.cpp build has no GPU support)</source>
      <translation>仅 CPU（这个 llama.cpp 版本不支持 GPU）</translation>
    </message>
    <message>
      <source>now: {n}/{total} layers on {device}</source>
      <translation>当前：{n}/{total} 层在 {device} 上</translation>
    </message>
    <message>
      <source>about {ram:.1f} GB RAM + {vram:.1f} GB VRAM</source>
      <translation>约 {ram:.1f} GB 内存 + {vram:.1f} GB 显存</translation>
    </message>
    <message>
      <source>about {ram:.1f} GB RAM</source>
      <translation>约 {ram:.1f} GB 内存</translation>
    </message>
    <message>
      <source>{name} ({backend}, {free:.1f} of {total:.1f} GB free)</source>
      <translation>{name}（{backend}，{total:.1f} GB 中可用 {free:.1f} GB）</translation>
    </message>
    <message>
      <source>the GPU</source>
      <translation>GPU</translation>
    </message>
    <message>
      <source>Name</source>
      <translation>名称</translation>
    </message>
    <message>
      <source>Architecture</source>
      <translation>架构</translation>
    </message>
    <message>
      <source>Parameters</source>
      <translation>参数量</translation>
    </message>
    <message>
      <source>Quantization</source>
      <translation>量化</translation>
    </message>
    <message>
      <source>Size</source>
      <translation>大小</translation>
    </message>
    <message>
      <source>Context</source>
      <translation>上下文</translation>
    </message>
    <message>
      <source>Template</source>
      <translation>模板</translation>
    </message>
    <message>
      <source>Status</source>
      <translation>状态</translation>
    </message>
    <message>
      <source>Auto: the GPU when there is one, as many layers as fit</source>
      <translation>自动：有 GPU 时使用 GPU，放入尽可能多的层</translation>
    </message>
    <message>
      <source>CPU only</source>
      <translation>仅 CPU</translation>
    </message>
    <message>
      <source>GPU: all layers</source>
      <translation>GPU：全部层</translation>
    </message>
    <message>
      <source>GPU: this many layers</source>
      <translation>GPU：指定层数</translation>
    </message>
    <message>
      <source>No {backend} GPU: its driver library could not be loaded ({detail}); running on the CPU.</source>
      <translation>无法使用 {backend} GPU：无法加载它的驱动库（{detail}）；改用 CPU 运行。</translation>
    </message>
    <message>
      <source>{backend} found no usable graphics device (no driver, or one too old); running on the CPU.</source>
      <translation>{backend} 没有找到可用的显卡（没有驱动，或驱动太旧）；改用 CPU 运行。</translation>
    </message>
    <message>
      <source>This llama.cpp build has no GPU support; running on the CPU.</source>
      <translation>这个 llama.cpp 版本不支持 GPU；使用 CPU 运行。</translation>
    </message>
    <message>
      <source>{need} with a {ctx}-token context, {where}; {speed}.</source>
      <translation>上下文 {ctx} 个词元时需要{need}，{where}；{speed}。</translation>
    </message>
    <message>
      <source>yes</source>
      <translation>有</translation>
    </message>
    <message>
      <source>no</source>
      <translation>无</translation>
    </message>
    <message>
      <source>ok</source>
      <translation>正常</translation>
    </message>
    <message>
      <source>SmolLM2 135M (built-in)</source>
      <translation>SmolLM2 135M（内置）</translation>
    </message>
  </context>
  <context>
    <name>ReportDialog</name>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="224" />
      <source>What I learned</source>
      <translation>我学到了什么</translation>
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="236" />
      <source>Undo this</source>
      <translation>撤销这条</translation>
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="237" />
      <source>Undo all</source>
      <translation>全部撤销</translation>
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="251" />
      <source> (undone)</source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="253" />
      <source>From </source>
      <translation type="unfinished" />
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="258" />
      <source>{n} proposal(s) were refused (duplicates, secrets, unsupported claims).</source>
      <translation type="unfinished" />
    </message>
  </context>
  <context>
    <name>SettingsDialog</name>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="34" />
      <source>Preferences</source>
      <translation>偏好设置</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="38" />
      <source>Names</source>
      <translation>名字</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="41" />
      <source>How the companion calls you</source>
      <translation>助手如何称呼你</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="43" />
      <source>Companion</source>
      <translation>Companion</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="44" />
      <source>Your name:</source>
      <translation>你的名字：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="45" />
      <source>Companion's name:</source>
      <translation>助手的名字：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="46" />
      <source>Saved into USER.md and SOUL.md, where you can edit them too.</source>
      <translation>保存在 USER.md 和 SOUL.md 中，你也可以在那里编辑。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="52" />
      <source>Sleep</source>
      <translation>睡眠</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="54" />
      <source>Distill the day into long-term memory every night</source>
      <translation>每晚把当天的对话提炼进长期记忆</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="61" />
      <source>Sleep at:</source>
      <translation>睡眠时间：</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="85" />
      <source>Preferences not saved</source>
      <translation>偏好设置未保存</translation>
    </message>
    <message>
      <location filename="../../companion/ui/settings_dialog.py" line="88" />
      <source>Preferences saved.</source>
      <translation>偏好设置已保存。</translation>
    </message>
    <message>
      <source>Also learn from our conversations during the day</source>
      <translation>白天也从我们的对话中学习</translation>
    </message>
    <message>
      <source>After a reply, facts you tell about yourself go to USER.md / MEMORY.md</source>
      <translation>每次回复后，你讲到的关于自己的事实会写入 USER.md / MEMORY.md</translation>
    </message>
    <message>
      <source>Keep running in the system tray when the window is closed</source>
      <translation>关闭窗口后在系统托盘中继续运行</translation>
    </message>
    <message>
      <source>So the nightly sleep and reminders happen while the window is closed</source>
      <translation>这样即使窗口关闭，夜间睡眠和提醒也会照常进行</translation>
    </message>
    <message>
      <source>General</source>
      <translation>常规</translation>
    </message>
    <message>
      <source>Appearance</source>
      <translation>外观</translation>
    </message>
    <message>
      <source>Replies</source>
      <translation>回复</translation>
    </message>
    <message>
      <source>Same as the system</source>
      <translation>跟随系统</translation>
    </message>
    <message>
      <source>Light</source>
      <translation>浅色</translation>
    </message>
    <message>
      <source>Dark</source>
      <translation>深色</translation>
    </message>
    <message>
      <source>Colours:</source>
      <translation>配色：</translation>
    </message>
    <message>
      <source>System size</source>
      <translation>系统字号</translation>
    </message>
    <message>
      <source>%1 pt</source>
      <translation>%1 磅</translation>
    </message>
    <message>
      <source>Text size:</source>
      <translation>字号：</translation>
    </message>
    <message>
      <source>Very short</source>
      <translation>很短</translation>
    </message>
    <message>
      <source>Short</source>
      <translation>短</translation>
    </message>
    <message>
      <source>Medium</source>
      <translation>中等</translation>
    </message>
    <message>
      <source>Long</source>
      <translation>长</translation>
    </message>
    <message>
      <source>Very long</source>
      <translation>很长</translation>
    </message>
    <message>
      <source>%1 (up to %2 tokens)</source>
      <translation>%1（最多 %2 个词元）</translation>
    </message>
    <message>
      <source>Up to %1 tokens</source>
      <translation>最多 %1 个词元</translation>
    </message>
    <message>
      <source>Reply length:</source>
      <translation>回复长度：</translation>
    </message>
    <message>
      <source>Lower: steadier, more literal replies. Higher: more varied ones.</source>
      <translation>越低：回复越稳定、越贴字面。越高：回复越多样。</translation>
    </message>
    <message>
      <source>Temperature:</source>
      <translation>温度：</translation>
    </message>
    <message>
      <source>What the model is told before every reply (read-only; built from your memory files):</source>
      <translation>每次回复前告诉模型的内容（只读；由你的记忆文件生成）：</translation>
    </message>
    <message>
      <source>Edit the persona in SOUL.md…</source>
      <translation>在 SOUL.md 中编辑人设……</translation>
    </message>
  </context>
  <context>
    <name>SleepController</name>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="73" />
      <location filename="../../companion/ui/sleep_glue.py" line="177" />
      <source>Sleep now</source>
      <translation>立即睡眠</translation>
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="74" />
      <source>Distill today's conversations into long-term memory now</source>
      <translation>现在把今天的对话提炼进长期记忆</translation>
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="77" />
      <source>What I learned last night…</source>
      <translation>我昨晚学到了什么…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="141" />
      <source>Already sleeping; the report comes when it finishes.</source>
      <translation>已在睡眠中；完成后会给出报告。</translation>
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="146" />
      <source>Stop sleeping</source>
      <translation>停止睡眠</translation>
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="147" />
      <source>💤 Sleeping…</source>
      <translation>💤 睡眠中…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/sleep_glue.py" line="204" />
      <source>No sleep report yet: the first one comes after tonight.</source>
      <translation>还没有睡眠报告：今晚之后会有第一份。</translation>
    </message>
    <message>
      <source>When the companion next distills the day into long-term memory</source>
      <translation>伙伴下一次把当天的对话提炼进长期记忆的时间</translation>
    </message>
    <message>
      <source>Nightly sleep off</source>
      <translation>夜间睡眠已关闭</translation>
    </message>
    <message>
      <source>Next sleep %1</source>
      <translation>下次睡眠 %1</translation>
    </message>
  </context>
  <context>
    <name>_TransferDialog</name>
    <message>
      <location filename="../../companion/ui/portability.py" line="111" />
      <source>Cancel</source>
      <translation>取消</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="115" />
      <source>Working…</source>
      <translation>处理中…</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="153" />
      <source>Close</source>
      <translation>关闭</translation>
    </message>
    <message>
      <location filename="../../companion/ui/portability.py" line="161" />
      <source>Stopping…</source>
      <translation>正在停止…</translation>
    </message>
  </context>
  <context>
    <name>window</name>
    <message>
      <location filename="../../companion/ui/model_settings.py" line="52" />
      <source>&amp;Model…</source>
      <translation>模型(&amp;M)…</translation>
    </message>
  </context>
  <context>
    <name>ModelOffer</name>
    <message>
      <source>%1 GB</source>
      <translation>%1 GB</translation>
    </message>
    <message>
      <source>You're chatting with a tiny built-in model</source>
      <translation>你正在和一个很小的内置模型聊天</translation>
    </message>
    <message>
      <source>It is only a demo: its answers are simple and often wrong. For this computer I recommend &lt;b&gt;%1&lt;/b&gt;. %2&lt;br&gt;%3 download, runs offline; it downloads in the background while we keep talking.</source>
      <translation>它只是个演示模型：回答很简单，也常常出错。这台电脑推荐使用 &lt;b&gt;%1&lt;/b&gt;。%2&lt;br&gt;下载大小 %3，可离线运行；它会在后台下载，我们可以继续聊天。</translation>
    </message>
    <message>
      <source>Download %1</source>
      <translation>下载（%1）</translation>
    </message>
    <message>
      <source>No thanks</source>
      <translation>不用了</translation>
    </message>
    <message>
      <source>Downloading %1…</source>
      <translation>正在下载 %1…</translation>
    </message>
    <message>
      <source>Keep chatting: the built-in model answers until the new one is ready.</source>
      <translation>继续聊吧：新模型准备好之前，由内置模型回答。</translation>
    </message>
    <message>
      <source>Stop</source>
      <translation>停止</translation>
    </message>
    <message>
      <source>The download of %1 stopped</source>
      <translation>%1 的下载已停止</translation>
    </message>
    <message>
      <source>What was downloaded is kept; resuming continues where it stopped.</source>
      <translation>已下载的部分会保留；继续下载会从停下的地方接着下。</translation>
    </message>
    <message>
      <source>Resume download</source>
      <translation>继续下载</translation>
    </message>
    <message>
      <source>%1 is ready</source>
      <translation>%1 已就绪</translation>
    </message>
    <message>
      <source>Downloaded and checked. Switch now? Our conversation and your memory stay as they are.</source>
      <translation>已下载并校验。现在切换吗？我们的对话和你的记忆都会保持不变。</translation>
    </message>
    <message>
      <source>Use this model</source>
      <translation>使用这个模型</translation>
    </message>
    <message>
      <source>Later</source>
      <translation>稍后</translation>
    </message>
    <message>
      <source>Switching to %1…</source>
      <translation>正在切换到 %1…</translation>
    </message>
    <message>
      <source>Loading the model; this takes a few seconds.</source>
      <translation>正在加载模型，需要几秒钟。</translation>
    </message>
    <message>
      <source>Now using %1</source>
      <translation>现在使用的是 %1</translation>
    </message>
    <message>
      <source>Replies come from it from now on. Settings &gt; Model lists other models.</source>
      <translation>从现在起由它来回答。“设置 &gt; 模型”中还有其他模型。</translation>
    </message>
    <message>
      <source>Understood. Settings &gt; Model has other models whenever you want one.</source>
      <translation>好的。需要时可以在“设置 &gt; 模型”中选择其他模型。</translation>
    </message>
    <message>
      <source>%1 of %2 GB</source>
      <translation>%1 / %2 GB</translation>
    </message>
    <message>
      <source>about %1 min left</source>
      <translation>约剩 %1 分钟</translation>
    </message>
    <message>
      <source>less than 2 min left</source>
      <translation>剩余不到 2 分钟</translation>
    </message>
    <message>
      <source>Switched to %1. Replies come from it from now on.</source>
      <translation>已切换到 %1。从现在起由它来回答。</translation>
    </message>
    <message>
      <source>%1 could not be loaded (%2). The built-in model stays in use.</source>
      <translation>无法加载 %1（%2）。继续使用内置模型。</translation>
    </message>
    <message>
      <source>It should answer at %1.</source>
      <translation>预计%1。</translation>
    </message>
  </context>
  <context>
    <name>Catalog</name>
    <message>
      <source>The most capable here: warm, thoughtful conversation in English, Chinese and many more.</source>
      <translation>这里最强的模型：用中文、英文等多种语言进行温暖、细致的交谈。</translation>
    </message>
    <message>
      <source>Best for 8 GB machines: quick, sharp and fluent in Chinese and English.</source>
      <translation>8 GB 内存电脑的最佳选择：反应快、头脑清楚，中英文都流利。</translation>
    </message>
    <message>
      <source>Gemma 4's small edition: natural conversation in many languages.</source>
      <translation>Gemma 4 的小型版本：多种语言的自然对话。</translation>
    </message>
    <message>
      <source>Careful reasoning and tidy answers in English.</source>
      <translation>推理严谨，英文回答条理清楚。</translation>
    </message>
    <message>
      <source>Friendly everyday English conversation on modest laptops.</source>
      <translation>在普通笔记本上进行友好的日常英文对话。</translation>
    </message>
    <message>
      <source>Small and quick, in Chinese and English; for 4 GB machines.</source>
      <translation>小巧快速，支持中英文；适合 4 GB 内存的电脑。</translation>
    </message>
    <message>
      <source>Fast replies on old or small machines (English).</source>
      <translation>在旧电脑或小内存电脑上也能快速回答（英文）。</translation>
    </message>
    <message>
      <source>Tiny multilingual chat for machines with little memory.</source>
      <translation>适合内存很小的电脑的迷你多语言聊天模型。</translation>
    </message>
    <message>
      <source>A larger English model; best with a GPU or 16 GB RAM.</source>
      <translation>较大的英文模型；最好有 GPU 或 16 GB 内存。</translation>
    </message>
    <message>
      <source>A larger model for Chinese and English; best with a GPU or 16 GB RAM.</source>
      <translation>较大的中英文模型；最好有 GPU 或 16 GB 内存。</translation>
    </message>
    <message>
      <source>%1: %2 GB download, needs about %3 GB RAM. %4</source>
      <translation>%1：下载 %2 GB，约需 %3 GB 内存。%4</translation>
    </message>
    <message>
      <source>, </source>
      <translation>、</translation>
    </message>
    <message>
      <source>about %1 words a second here</source>
      <translation>在这台电脑上每秒约 %1 个字</translation>
    </message>
    <message>
      <source>Fits this computer</source>
      <translation>适合这台电脑</translation>
    </message>
    <message>
      <source>Runs slowly here</source>
      <translation>在这台电脑上较慢</translation>
    </message>
    <message>
      <source>Too big for this computer</source>
      <translation>对这台电脑来说太大</translation>
    </message>
    <message>
      <source>Other: enter a repository and a file name</source>
      <translation>其他：输入仓库和文件名</translation>
    </message>
    <message>
      <source>Model:</source>
      <translation>模型：</translation>
    </message>
    <message>
      <source>Quantization:</source>
      <translation>量化：</translation>
    </message>
    <message>
      <source>(a first guess; measured after the built-in model has run)</source>
      <translation>（初步估计；内置模型运行后会实际测量）</translation>
    </message>
    <message>
      <source>Languages: %1</source>
      <translation>语言：%1</translation>
    </message>
    <message>
      <source>Recommended for this computer: %1</source>
      <translation>推荐这台电脑使用：%1</translation>
    </message>
    <message>
      <source>%1: %2 GB, %3 [%4]</source>
      <translation>%1：%2 GB，%3 [%4]</translation>
    </message>
    <message>
      <source>English</source>
      <translation>英文</translation>
    </message>
    <message>
      <source>Chinese</source>
      <translation>中文</translation>
    </message>
    <message>
      <source>smaller, a little less accurate</source>
      <translation>更小，准确度略低</translation>
    </message>
    <message>
      <source>balanced (recommended)</source>
      <translation>均衡（推荐）</translation>
    </message>
    <message>
      <source>best quality, about twice the size</source>
      <translation>质量最好，大小约为两倍</translation>
    </message>
  </context>
  <context>
    <name>MarkdownEdit</name>
    <message>
      <source>Open the day log at this message</source>
      <translation>打开这条消息所在的日志</translation>
    </message>
  </context>
  <context>
    <name>PrivacyToggle</name>
    <message>
      <source>Don't remember this</source>
      <translation>不要记住这些</translation>
    </message>
    <message>
      <source>While on, what you say is kept in the day log as private: never learned, recalled, distilled at night or exported (Ctrl+Shift+P)</source>
      <translation>开启时，你说的话会作为私密内容留在日志里：不会被学习、回想、夜间提炼或导出（Ctrl+Shift+P）</translation>
    </message>
    <message>
      <source>Not remembering</source>
      <translation>记忆已暂停</translation>
    </message>
    <message>
      <source>Memory paused: what you say now stays in the day log as private and is never learned, recalled or exported. Turn it off to remember again.</source>
      <translation>记忆已暂停：你现在说的话会作为私密内容留在日志里，不会被学习、回想或导出。关闭开关即可恢复记忆。</translation>
    </message>
    <message numerus="yes">
      <source>Remembering again. %n turn(s) stayed private.</source>
      <translation>
        <numerusform>已恢复记忆。有 %n 轮对话保持私密。</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>ReminderController</name>
    <message>
      <source>Reminder</source>
      <translation>提醒</translation>
    </message>
    <message>
      <source>Missed reminder (%1)</source>
      <translation>错过的提醒（%1）</translation>
    </message>
  </context>
  <context>
    <name>TrayController</name>
    <message>
      <source>Companion</source>
      <translation>Companion</translation>
    </message>
    <message>
      <source>Open</source>
      <translation>打开</translation>
    </message>
    <message>
      <source>Sleep now</source>
      <translation>立即睡眠</translation>
    </message>
    <message>
      <source>Quit</source>
      <translation>退出</translation>
    </message>
    <message>
      <source>Nightly sleep is not available.</source>
      <translation>夜间睡眠不可用。</translation>
    </message>
    <message>
      <source>Keep Companion running?</source>
      <translation>让 Companion 继续运行吗？</translation>
    </message>
    <message>
      <source>Keep Companion running in the system tray when its window is closed? Then the nightly sleep and your reminders still happen. You can change this in Preferences.</source>
      <translation>关闭窗口后让 Companion 在系统托盘中继续运行吗？这样夜间睡眠和提醒仍会照常进行。可以在偏好设置中更改。</translation>
    </message>
    <message>
      <source>Companion is still running</source>
      <translation>Companion 仍在运行</translation>
    </message>
    <message>
      <source>Reminders and the nightly sleep keep working. Use the tray icon to open or quit.</source>
      <translation>提醒和夜间睡眠会继续工作。可用托盘图标打开或退出。</translation>
    </message>
  </context>
  <context>
    <name>ConnectDialog</name>
    <message>
      <source>Connect another assistant</source>
      <translation>连接其他助手</translation>
    </message>
    <message>
      <source>Other assistants (Claude Desktop, Cursor, any MCP client) can ask Companion what it knows about you. They see nothing until you tick what they may see. Private turns are never shared, secrets are always hidden, and what they ask to remember waits for you.</source>
      <translation>其他助手（Claude Desktop、Cursor 或任何 MCP 客户端）可以向 Companion 询问它对你的了解。在你勾选允许的内容之前，它们什么也看不到。私密对话从不共享，机密信息总是隐藏，它们要求记住的内容会等你确认。</translation>
    </message>
    <message>
      <source>Assistant:</source>
      <translation>助手：</translation>
    </message>
    <message>
      <source>Save what it may see</source>
      <translation>保存可见范围</translation>
    </message>
    <message>
      <source>Claude Desktop</source>
      <translation>Claude Desktop</translation>
    </message>
    <message>
      <source>Other MCP client</source>
      <translation>其他 MCP 客户端</translation>
    </message>
    <message>
      <source>New HTTP token</source>
      <translation>新的 HTTP 令牌</translation>
    </message>
    <message>
      <source>Search past conversations, memory files and digests</source>
      <translation>搜索过去的对话、记忆文件和摘要</translation>
    </message>
    <message>
      <source>Read the profile (USER.md)</source>
      <translation>读取个人资料（USER.md）</translation>
    </message>
    <message>
      <source>Read the long-term memory (MEMORY.md)</source>
      <translation>读取长期记忆（MEMORY.md）</translation>
    </message>
    <message>
      <source>Read recent digests</source>
      <translation>读取最近的摘要</translation>
    </message>
    <message>
      <source>Read what is upcoming</source>
      <translation>读取即将发生的事</translation>
    </message>
    <message>
      <source>See contact details unmasked</source>
      <translation>查看未遮盖的联系方式</translation>
    </message>
    <message>
      <source>Propose memories (you approve each one)</source>
      <translation>提议记忆（每条都由你批准）</translation>
    </message>
    <message>
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <source>An assistant's name is lowercase letters, digits, '.', '_' or '-'.</source>
      <translation>助手名称只能包含小写字母、数字、“.”、“_”或“-”。</translation>
    </message>
    <message>
      <source>Add this to claude_desktop_config.json, then restart Claude Desktop:</source>
      <translation>将以下内容加入 claude_desktop_config.json，然后重启 Claude Desktop：</translation>
    </message>
    <message>
      <source>stdio, or HTTP after running `companion mcp --http`:</source>
      <translation>stdio，或在运行 `companion mcp --http` 之后使用 HTTP：</translation>
    </message>
    <message>
      <source>Saved what %1 may see.</source>
      <translation>已保存 %1 的可见范围。</translation>
    </message>
  </context>
  <context>
    <name>ProposalsDialog</name>
    <message>
      <source>%1 asks to remember: %2</source>
      <translation>%1 请求记住：%2</translation>
    </message>
    <message>
      <source>%1 on the other computer: “%2” instead of “%3”</source>
      <translation>另一台电脑上的 %1：“%2”，而不是“%3”</translation>
    </message>
    <message>
      <source>(nothing)</source>
      <translation>（无）</translation>
    </message>
    <message>
      <source>Proposed memories</source>
      <translation>提议的记忆</translation>
    </message>
    <message>
      <source>Waiting for you:</source>
      <translation>等待你确认：</translation>
    </message>
    <message>
      <source>Save to memory</source>
      <translation>保存到记忆</translation>
    </message>
    <message>
      <source>Decline</source>
      <translation>拒绝</translation>
    </message>
    <message>
      <source>Saved:</source>
      <translation>已保存：</translation>
    </message>
    <message>
      <source>Undo</source>
      <translation>撤销</translation>
    </message>
    <message>
      <location filename="../../companion/ui/connect_assistant.py" line="217" />
      <source>Not saved: %1.</source>
      <translation>未保存：%1。</translation>
    </message>
  </context>
  <context>
    <name>ConnectGlue</name>
    <message>
      <source>Connect another assistant…</source>
      <translation>连接其他助手…</translation>
    </message>
    <message>
      <source>Proposed memories…</source>
      <translation>提议的记忆…</translation>
    </message>
    <message>
      <source>Proposed memories (%1)…</source>
      <translation>提议的记忆（%1）…</translation>
    </message>
    <message numerus="yes">
      <source>%n proposed memory(s) wait for you: Memory &gt; Proposed memories.</source>
      <translation>
        <numerusform>%n 条提议的记忆等你确认：记忆 &gt; 提议的记忆。</numerusform>
      </translation>
    </message>
  </context>
  <context>
    <name>BrokenFileDialog</name>
    <message>
      <source>A memory file cannot be read</source>
      <translation>无法读取记忆文件</translation>
    </message>
    <message>
      <source> (line %1)</source>
      <translation>（第 %1 行）</translation>
    </message>
    <message>
      <source>The settings at the top of %1 are broken%2. Chat keeps working with the rest of the file meanwhile.</source>
      <translation>%1 顶部的设置已损坏%2。在此期间，聊天会继续使用文件的其余内容。</translation>
    </message>
    <message>
      <source>Open the file</source>
      <translation>打开文件</translation>
    </message>
    <message>
      <source>Restore the version of %1</source>
      <translation>恢复 %1 的版本</translation>
    </message>
    <message>
      <source>Later</source>
      <translation>稍后</translation>
    </message>
    <message>
      <source>Restore failed</source>
      <translation>恢复失败</translation>
    </message>
  </context>
  <context>
    <name>CodeBlock</name>
    <message>
      <source>Copy</source>
      <translation>复制</translation>
    </message>
    <message>
      <source>Copy this code</source>
      <translation>复制这段代码</translation>
    </message>
    <message>
      <source>code</source>
      <translation>代码</translation>
    </message>
  </context>
  <context>
    <name>DiffView</name>
    <message>
      <source>… %1 unchanged lines …</source>
      <translation>…… %1 行未改动 ……</translation>
    </message>
    <message>
      <source>No differences.</source>
      <translation>没有差别。</translation>
    </message>
  </context>
  <context>
    <name>Links</name>
    <message>
      <source>Open link?</source>
      <translation>打开链接？</translation>
    </message>
    <message>
      <source>Open this address in your browser?

%1</source>
      <translation>在浏览器中打开这个地址？

%1</translation>
    </message>
    <message>
      <source>Link not opened</source>
      <translation>链接未打开</translation>
    </message>
    <message>
      <source>Only web links (http and https) open from the chat. This one was:

%1</source>
      <translation>聊天中只能打开网页链接（http 和 https）。这个链接是：

%1</translation>
    </message>
  </context>
  <context>
    <name>MemoryNotices</name>
    <message>
      <source>Updated %1: %2</source>
      <translation>已更新 %1：%2</translation>
    </message>
    <message>
      <source>Learned from the conversation, in %1: %2</source>
      <translation>从对话中学到，记在 %1：%2</translation>
    </message>
    <message>
      <source>Remembered in %1: %2</source>
      <translation>已记在 %1：%2</translation>
    </message>
    <message>
      <source>Forgot 1 entry in %1</source>
      <translation>已忘记 %1 中的 1 条记录</translation>
    </message>
    <message>
      <source>Changed %1</source>
      <translation>已修改 %1</translation>
    </message>
    <message>
      <source>Undo</source>
      <translation>撤销</translation>
    </message>
    <message>
      <source>Put the memory back as it was before this change</source>
      <translation>把记忆恢复到这次修改之前的样子</translation>
    </message>
    <message>
      <source>changed again since: use History to take it back</source>
      <translation>之后又被修改过：请用“历史”恢复</translation>
    </message>
    <message>
      <source>undone</source>
      <translation>已撤销</translation>
    </message>
    <message numerus="yes">
      <source>Forgot %n entries in %1</source>
      <translation>
        <numerusform>已忘记 %1 中的 %n 条记录</numerusform>
      </translation>
    </message>
  </context>
</TS>
