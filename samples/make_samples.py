"""Generate the kotae demo corpus (all content fictional, written for this project).

Run:  python samples/make_samples.py

Writes, next to this script:
  work-rules.pdf          就業規則 of the fictional 株式会社サンプル商事 (reportlab, built-in CID fonts)
  faq.md                  社内FAQ in Japanese Markdown
  employee-handbook.docx  English handbook of the fictional Aozora Labs K.K. (python-docx)
  expense-codes.csv       expense-code table, Japanese and English rows mixed

The output is deterministic: running the script twice gives byte-identical files.
It also prints the page on which each article of work-rules.pdf starts (and ends).
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import re
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"

# ---------------------------------------------------------------------------------------------
# 1. work-rules.pdf — 就業規則
# ---------------------------------------------------------------------------------------------
# Structure: ("chapter", title) | ("article", heading, [clause, ...]) | ("supplement", heading, [...]).
# A clause is a str or (str, [item, ...]); items are rendered as （1）, （2）, ...
# "{見出し}" inside a text is replaced by the number of the article with that heading (e.g. 第48条).
# Words deliberately absent from the whole PDF (paraphrase / unanswerable golden questions rely on it):
# 給料 給与 クビ 社員 残業 仕事 電車 ボーナス 育休 見習 新人 半年 罰 バイト 退職金 駐車場 制服 社宅 ペット 株主 旅行

RULES: list[tuple] = [
    ("chapter", "第1章　総則"),
    ("article", "目的", [
        "この規則は、株式会社サンプル商事（以下「会社」という。）の従業員の労働条件、服務規律その他就業に"
        "関する事項を定めたものである。",
        "この規則及びこれに付属する諸規程に定めのない事項については、労働基準法その他の関係法令の定める"
        "ところによる。",
    ]),
    ("article", "適用範囲", [
        "この規則は、会社と期間の定めのない労働契約を締結した従業員に適用する。",
        "契約従業員、パートタイム従業員及び嘱託従業員の就業に関し必要な事項については、別に定める規程による。"
        "ただし、当該規程に定めのない事項については、この規則を準用する。",
    ]),
    ("article", "規則の遵守", [
        "会社及び従業員は、この規則及び関係法令を遵守し、相互に協力して業務の円滑な運営と職場秩序の維持に"
        "努めなければならない。",
    ]),
    ("chapter", "第2章　採用"),
    ("article", "採用", [
        "会社は、就職を希望する者の中から、書類選考、筆記試験及び面接試験等の選考を経て、従業員を採用する。",
        "採用選考に当たっては、性別、年齢、国籍、信条その他業務の遂行に関係のない事項を理由として、不当な"
        "差別的取扱いをしてはならない。",
    ]),
    ("article", "採用時の提出書類", [
        ("従業員として採用された者は、採用の日から14日以内に、次の書類を会社に提出しなければならない。", [
            "住民票記載事項証明書",
            "最終学歴の卒業証明書",
            "職務に必要な資格の証明書の写し",
            "誓約書及び身元保証書",
            "通勤経路届及び賃金の口座振込同意書",
            "その他会社が必要と認める書類",
        ]),
    ]),
    ("article", "試用期間", [
        "新たに採用した者については、採用の日から3か月間を試用期間とする。",
        "前項の規定にかかわらず、会社が特に認めたときは、試用期間を短縮し、又は設けないことがある。また、"
        "試用期間中の勤務状況により必要と認めたときは、3か月を限度として試用期間を延長することがある。",
        "試用期間中又は試用期間の満了時に、従業員として不適格であると認められた者は、解雇することがある。"
        "ただし、採用の日から14日を経過した者を解雇する場合には、{解雇}第2項に定める手続による。",
        "試用期間は、勤続年数に通算する。",
    ]),
    ("article", "労働条件の明示", [
        "会社は、従業員の採用に際し、採用時の賃金、就業の場所、従事する業務、労働時間、休日その他の労働条件を"
        "明らかにするため、労働条件通知書及びこの規則の写しを交付する。",
    ]),
    ("chapter", "第3章　服務規律"),
    ("article", "服務の基本原則", [
        "従業員は、職務上の責任を自覚し、誠実に職務を遂行するとともに、所属長の指揮命令に従い、職場の秩序の"
        "維持に努めなければならない。",
    ]),
    ("article", "遵守事項", [
        ("従業員は、次に掲げる事項を守らなければならない。", [
            "勤務中は職務に専念し、正当な理由なく勤務場所を離れないこと。",
            "会社の名誉や信用を損なう行為をしないこと。",
            "会社の施設、車両、機器、情報システム等を業務以外の目的で使用しないこと。",
            "職務に関連して取引先等から不当な金品の贈与又は接待を受けないこと。",
            "酒気を帯びて勤務しないこと。",
            "その他、従業員としてふさわしくない行為をしないこと。",
        ]),
    ]),
    ("article", "秘密保持", [
        "従業員は、在職中及び退職後において、業務上知り得た会社及び取引先等の機密情報を、会社の許可なく"
        "第三者に開示し、又は業務以外の目的で使用してはならない。",
        "従業員は、退職するときは、在職中に取得した機密情報を含む文書、電子媒体その他の資料を会社に"
        "返還しなければならない。",
    ]),
    ("article", "個人情報の保護", [
        "従業員は、会社及び取引先等が保有する個人情報を、会社の定める個人情報保護規程に従って適正に"
        "取り扱わなければならない。",
        "従業員は、個人情報の漏えい、滅失又はき損のおそれがある事態を知ったときは、直ちに所属長及び"
        "情報システム部に報告しなければならない。",
    ]),
    ("article", "ハラスメントの禁止", [
        "従業員は、職場におけるセクシュアルハラスメント、パワーハラスメント、妊娠・出産・育児休業等に関する"
        "ハラスメントその他のハラスメントにより、他の従業員の就業環境を害するような言動を行ってはならない。",
        "会社は、ハラスメントに関する相談及び苦情に対応するため、人事部内に相談窓口を設ける。相談窓口の"
        "担当者は、相談者のプライバシーを保護しなければならない。",
        "会社は、従業員が相談をしたこと又は事実関係の確認に協力したことを理由として、当該従業員に不利益な"
        "取扱いをしない。",
    ]),
    ("article", "副業・兼業", [
        "従業員は、勤務時間外において、他の会社等の業務に従事することができる。",
        "従業員は、前項の業務に従事しようとするときは、その開始予定日の30日前までに、所定の副業・兼業届を"
        "所属長を経由して会社に提出しなければならない。",
        ("会社は、従業員の副業・兼業が次の各号のいずれかに該当する場合には、これを禁止し、又は制限する"
         "ことができる。", [
             "労務提供上の支障がある場合",
             "会社の機密情報が漏えいするおそれがある場合",
             "会社の名誉や信用を損なう行為又は信頼関係を破壊する行為がある場合",
             "競業により会社の利益を害する場合",
         ]),
        "副業・兼業に従事する従業員は、会社における労働時間と副業・兼業先における労働時間の合計が過重と"
        "ならないよう、自らの健康管理に努めなければならない。",
    ]),
    ("article", "出退勤", [
        "従業員は、始業時刻までに出勤し、出勤及び退勤の際は、勤怠管理システムにより自ら出退勤の時刻を"
        "記録しなければならない。",
        "従業員は、遅刻、早退又は欠勤をするときは、事前に所属長に届け出なければならない。ただし、やむを"
        "得ない理由により事前に届け出ることができなかったときは、事後速やかに届け出なければならない。",
        "傷病による欠勤が連続4日以上に及ぶときは、医師の診断書を提出しなければならない。",
    ]),
    ("chapter", "第4章　労働時間、休憩及び休日"),
    ("article", "労働時間及び休憩時間", [
        "所定労働時間は、1日について8時間、1週間について40時間とする。",
        ("始業及び終業の時刻並びに休憩時間は、次のとおりとする。", [
            "始業時刻　午前9時",
            "終業時刻　午後6時",
            "休憩時間　正午から午後1時まで（60分）",
        ]),
        "前項の規定にかかわらず、業務の都合その他やむを得ない事情により、始業及び終業の時刻並びに休憩時間を"
        "繰り上げ、又は繰り下げることがある。",
    ]),
    ("article", "休憩時間の利用", [
        "従業員は、休憩時間を自由に利用することができる。ただし、外出する場合には、所属長に行き先を"
        "告げなければならない。",
    ]),
    ("article", "休日", [
        ("休日は、次のとおりとする。", [
            "土曜日及び日曜日",
            "国民の祝日に関する法律に定める休日",
            "年末年始（12月29日から翌年1月3日まで）",
            "夏季休日（8月13日から8月15日まで）",
            "その他会社が指定する日",
        ]),
        "前項第1号の休日のうち、日曜日を法定休日とする。",
    ]),
    ("article", "休日の振替", [
        "業務の都合によりやむを得ない場合は、前条の休日をあらかじめ他の労働日と振り替えることがある。"
        "この場合、会社は、前日までに振り替える休日及び労働日を指定して従業員に通知する。",
        "休日の振替は、同一週内で行うことを原則とし、同一週内で行えないときは、4週間以内の日に振り替える。",
    ]),
    ("article", "時間外及び休日労働", [
        "会社は、業務の都合により、所定労働時間を超えて労働させ、又は休日に労働させることがある。",
        "前項の場合において、法定労働時間を超える労働又は法定休日における労働については、あらかじめ会社と"
        "従業員の過半数代表者との間で締結し、労働基準監督署長に届け出た時間外労働及び休日労働に関する協定"
        "（以下「36協定」という。）の範囲内で命ずるものとする。",
        "36協定に定める時間外労働の上限は、原則として1か月45時間、1年360時間とする。",
        "時間外労働又は休日労働を行う従業員は、事前に所属長の承認を受けなければならない。",
        "妊娠中の女性、産後1年を経過しない女性及び育児又は家族の介護を行う従業員から請求があった場合には、"
        "法令の定めるところにより、時間外労働、休日労働及び深夜労働を制限する。",
    ]),
    ("article", "在宅勤務", [
        "会社は、業務上支障がないと認める場合には、従業員が自宅その他会社が認める場所において業務に従事する"
        "こと（以下「在宅勤務」という。）を許可することがある。",
        "在宅勤務を希望する従業員は、原則として在宅勤務を行う日の前日の正午までに、所属長に申請し、許可を"
        "得なければならない。",
        "在宅勤務は、1週間につき3日を限度とする。",
        "在宅勤務時の労働時間、休憩及び休日は、{労働時間及び休憩時間}及び{休日}の定めによる。",
        "在宅勤務を行う従業員には、通信費等に充てるため、在宅勤務手当として月額3,000円を支給する。",
    ]),
    ("article", "出張", [
        "会社は、業務上必要がある場合には、従業員に出張を命ずることがある。",
        "出張に要する交通費、宿泊費及び日当は、別に定める旅費規程により支給する。",
    ]),
    ("chapter", "第5章　休暇等"),
    ("article", "年次有給休暇", [
        "採用の日から6か月間継続勤務し、所定労働日の8割以上出勤した従業員に対しては、10日の年次有給休暇を"
        "与える。その後1年間継続勤務するごとに、当該1年間において所定労働日の8割以上出勤した従業員に対して"
        "は、次項の表のとおり勤続期間に応じた日数の年次有給休暇を与える。",
        ("勤続期間に応じた年次有給休暇の付与日数は、次のとおりとする。", [
            "勤続6か月　10日",
            "勤続1年6か月　11日",
            "勤続2年6か月　12日",
            "勤続3年6か月　14日",
            "勤続4年6か月　16日",
            "勤続5年6か月　18日",
            "勤続6年6か月以上　20日",
        ]),
        "年次有給休暇は、半日単位で取得することができる。また、労使協定の定めるところにより、1年について"
        "5日の範囲内で、時間単位で取得することができる。",
    ]),
    ("article", "年次有給休暇の取得手続", [
        "従業員は、年次有給休暇を取得しようとするときは、原則として取得しようとする日の3日前までに、所定の"
        "手続により所属長に届け出なければならない。",
        "会社は、事業の正常な運営を妨げる場合には、従業員の指定した時季を他の時季に変更することがある。",
        "会社は、年次有給休暇が10日以上与えられた従業員に対し、付与日から1年以内に、そのうち5日について、"
        "従業員の意見を聴取した上で時季を指定して取得させる。ただし、従業員が自ら取得した日数は、当該5日から"
        "控除する。",
        "当該年度に取得しなかった年次有給休暇の残日数は、翌年度に限り繰り越すことができる。",
    ]),
    ("article", "特別休暇", [
        ("従業員が次の各号に掲げる慶弔の事由に該当する場合には、当該各号に定める日数の特別休暇を与える。", [
            "本人が結婚するとき　結婚の日から6か月以内に連続5日",
            "子が結婚するとき　2日",
            "配偶者が出産するとき　出産の日から2週間以内に2日",
            "配偶者、子又は父母が死亡したとき　5日",
            "祖父母、兄弟姉妹又は配偶者の父母が死亡したとき　3日",
            "その他前各号に準ずる事由があり、会社が必要と認めたとき　会社が認めた日数",
        ]),
        "特別休暇は有給とし、その期間中は通常の賃金を支払う。",
        "特別休暇を取得しようとする従業員は、事前に所属長に届け出なければならない。ただし、やむを得ない場合は"
        "事後速やかに届け出るものとする。",
    ]),
    ("article", "産前産後の休業", [
        "6週間（多胎妊娠の場合は14週間）以内に出産する予定の女性従業員が請求した場合には、産前休業を与える。",
        "産後8週間を経過しない女性従業員は、就業させない。ただし、産後6週間を経過した女性従業員から請求が"
        "あった場合において、医師が支障がないと認めた業務に就かせることは差し支えない。",
    ]),
    ("article", "育児休業", [
        "1歳に満たない子を養育する従業員は、会社に申し出て、当該子が1歳に達する日までの間、育児休業をする"
        "ことができる。",
        "保育所への入所を希望しているが入所できない場合その他法令に定める事情がある場合には、子が1歳6か月に"
        "達する日まで、さらに必要な場合には子が2歳に達する日まで、育児休業を延長することができる。",
        "育児休業の申出は、原則として休業開始予定日の1か月前までに、所定の育児休業申出書を会社に提出して"
        "行うものとする。",
        "前各項に定めるもののほか、育児休業、育児のための短時間勤務その他の措置に関し必要な事項は、別に定める"
        "育児・介護休業規程による。",
    ]),
    ("article", "介護休業", [
        "要介護状態にある対象家族を介護する従業員は、会社に申し出て、対象家族1人につき通算93日を限度として、"
        "3回まで分割して介護休業をすることができる。",
        "介護休業の申出は、原則として休業開始予定日の2週間前までに行うものとする。",
        "前各項に定めるもののほか、介護休業に関し必要な事項は、別に定める育児・介護休業規程による。",
    ]),
    ("article", "子の看護等休暇及び介護休暇", [
        "小学校第3学年修了前の子を養育する従業員は、1年度につき5日（子が2人以上の場合は10日）を限度と"
        "して、子の看護等休暇を取得することができる。",
        "要介護状態にある対象家族の介護その他の世話をする従業員は、1年度につき5日（対象家族が2人以上の"
        "場合は10日）を限度として、介護休暇を取得することができる。",
        "前2項の休暇は、時間単位で取得することができる。",
    ]),
    ("article", "公民権行使の時間", [
        "従業員が勤務時間中に選挙権その他公民としての権利を行使するため、あらかじめ申し出た場合は、それに"
        "必要な時間を与える。ただし、権利の行使を妨げない限りにおいて、申し出た時刻を変更することがある。",
    ]),
    ("chapter", "第6章　賃金"),
    ("article", "賃金の構成", [
        ("賃金の構成は、次のとおりとする。", [
            "基本給",
            "諸手当　役職手当、家族手当、通勤手当及び在宅勤務手当",
            "割増賃金",
        ]),
    ]),
    ("article", "基本給", [
        "基本給は、月額で定めるものとし、本人の職務内容、職務遂行能力、経験等を考慮して各人別に決定する。",
    ]),
    ("article", "賃金の計算期間及び支払日", [
        "賃金は、毎月末日に締め切り、翌月25日に支払う。支払日が休日に当たるときは、その前日に支払う。",
        "前項の計算期間の中途で採用され、又は退職した場合の賃金は、当該計算期間の所定労働日数を基準に日割計算"
        "して支払う。",
        "従業員が出産、疾病、災害その他非常の場合の費用に充てるために請求したときは、第1項の支払日前であって"
        "も、既往の労働に対する賃金を支払う。",
    ]),
    ("article", "賃金の支払方法", [
        "賃金は、通貨で直接従業員にその全額を支払う。ただし、従業員の同意を得た場合は、従業員が指定する"
        "金融機関の本人名義の口座に振り込むことにより支払う。",
        ("次に掲げるものは、賃金から控除する。", [
            "源泉所得税及び住民税",
            "健康保険料、厚生年金保険料及び雇用保険料の被保険者負担分",
            "労使協定により賃金から控除することとしたもの",
        ]),
    ]),
    ("article", "役職手当", [
        ("役職手当は、次の区分により月額で支給する。", [
            "部長　60,000円",
            "課長　40,000円",
            "係長　15,000円",
        ]),
    ]),
    ("article", "家族手当", [
        ("家族手当は、扶養家族を有する従業員に対し、次の区分により月額で支給する。", [
            "配偶者　10,000円",
            "18歳未満の子1人につき　5,000円（3人目まで）",
        ]),
    ]),
    ("article", "通勤手当", [
        "通勤手当は、公共交通機関を利用して通勤する従業員に対し、最も経済的かつ合理的な経路による1か月定期"
        "乗車券の額を支給する。ただし、月額50,000円を上限とする。",
        "自家用自動車等で通勤することを会社が認めた従業員に対しては、片道の通勤距離に応じて別に定める額を"
        "支給する。",
        "通勤経路又は通勤方法に変更があったときは、従業員は速やかに通勤経路届を会社に提出しなければならない。",
    ]),
    ("article", "割増賃金", [
        ("時間外労働、休日労働及び深夜労働に対しては、次の割増率により計算した割増賃金を支払う。", [
            "法定労働時間を超える時間外労働　25%（1か月60時間を超える部分は50%）",
            "法定休日の労働　35%",
            "深夜労働（午後10時から午前5時までの労働）　25%",
        ]),
        "割増賃金の算定の基礎となる1時間当たりの賃金額は、基本給及び役職手当の合計額を1か月平均所定労働"
        "時間数で除した額とする。",
    ]),
    ("article", "昇給", [
        "昇給は、毎年4月1日に、従業員の勤務成績、能力等を勘案して行う。ただし、会社の業績の著しい低下その他"
        "やむを得ない事由がある場合には、昇給を行わないことがある。",
    ]),
    ("article", "賞与", [
        "賞与は、原則として毎年7月及び12月の2回、会社の業績及び従業員の勤務成績等を勘案して支給する。",
        "賞与の算定対象期間は、7月支給分については前年10月1日から3月31日まで、12月支給分については4月1日"
        "から9月30日までとする。",
        "賞与は、支給日に在籍している従業員に対して支給する。",
        "会社の業績の著しい低下その他やむを得ない事由がある場合には、支給時期を延期し、又は支給しないことが"
        "ある。",
    ]),
    ("chapter", "第7章　安全衛生"),
    ("article", "安全衛生の基本", [
        "会社は、従業員の安全衛生の確保及び改善を図り、快適な職場の形成のために必要な措置を講ずる。",
        "従業員は、安全衛生に関する法令及び会社の指示を守り、会社と協力して労働災害の防止に努めなければ"
        "ならない。",
    ]),
    ("article", "健康診断", [
        "従業員に対しては、採用の際及び毎年1回、定期に健康診断を行う。",
        "深夜労働に従事する従業員に対しては、6か月ごとに1回、定期に健康診断を行う。",
        "従業員は、正当な理由なく前2項の健康診断を拒んではならない。",
        "会社は、健康診断の結果に基づき必要と認めるときは、就業場所の変更、労働時間の短縮その他必要な措置を"
        "命ずることがある。",
    ]),
    ("article", "長時間労働者に対する面接指導", [
        "会社は、時間外労働及び休日労働の時間が1か月当たり80時間を超え、かつ疲労の蓄積が認められる従業員から"
        "申出があった場合には、産業医による面接指導を行う。",
        "前項に定めるもののほか、会社は、健康への配慮が必要と認める従業員に対し、面接指導又はこれに準ずる"
        "措置を講ずる。",
    ]),
    ("article", "ストレスチェック", [
        "会社は、従業員に対し、毎年1回、心理的な負担の程度を把握するための検査（以下「ストレスチェック」と"
        "いう。）を行う。",
        "ストレスチェックの結果は、本人の同意なく会社に提供されることはない。",
    ]),
    ("chapter", "第8章　休職"),
    ("article", "休職", [
        ("従業員が次のいずれかに該当するときは、休職を命ずることがある。", [
            "業務外の傷病による欠勤が連続して1か月を超え、なお療養を継続する必要があるとき",
            "前号のほか、特別の事情があり休職させることが適当と認められるとき",
        ]),
        "休職期間は、前項第1号の場合、勤続1年未満の者は3か月、勤続1年以上の者は6か月とし、前項第2号の場合"
        "は会社が必要と認める期間とする。",
    ]),
    ("article", "復職", [
        "休職の事由が消滅したときは、原則として元の職務に復帰させる。ただし、元の職務に復帰させることが困難"
        "であるときは、他の職務に就かせることがある。",
        "休職期間が満了してもなお休職の事由が消滅しないときは、休職期間満了の日をもって退職とする。",
    ]),
    ("chapter", "第9章　退職及び解雇"),
    ("article", "退職", [
        ("従業員が次のいずれかに該当するときは、退職とする。", [
            "退職を願い出て会社が承認したとき、又は退職届を提出して14日を経過したとき",
            "死亡したとき",
            "期間を定めて雇用されている場合において、その期間を満了したとき",
            "{復職}第2項に該当したとき",
            "{定年等}に定める定年に達したとき",
        ]),
        "従業員が自己の都合により退職しようとするときは、原則として退職予定日の30日前までに、所属長を経由して"
        "退職届を提出しなければならない。",
        "退職する従業員は、退職日までに、会社の指示に従って業務の引継ぎを完了しなければならない。",
    ]),
    ("article", "定年等", [
        "従業員の定年は、満60歳とし、定年に達した日の属する月の末日をもって退職とする。",
        "前項の規定にかかわらず、定年後も引き続き勤務することを希望する従業員については、満65歳まで継続雇用"
        "する。",
    ]),
    ("article", "解雇", [
        ("従業員が次のいずれかに該当するときは、解雇することがある。", [
            "勤務状況が著しく不良で、改善の見込みがなく、従業員としての職責を果たし得ないとき",
            "勤務成績又は業務能率が著しく不良で、向上の見込みがなく、他の職務にも転換できない等、就業に適さない"
            "とき",
            "精神又は身体の障害により、業務に耐えられないと認められるとき",
            "試用期間中又は試用期間満了時までに従業員として不適格であると認められたとき",
            "事業の縮小その他事業の運営上やむを得ない事情により、従業員の減員等が必要となったとき",
            "その他前各号に準ずるやむを得ない事由があるとき",
        ]),
        "前項の規定により従業員を解雇する場合は、少なくとも30日前に予告をするか、又は予告に代えて平均賃金の"
        "30日分以上の解雇予告手当を支払う。ただし、所轄の労働基準監督署長の認定を受けて懲戒解雇する場合その他"
        "法令に定める場合は、この限りでない。",
        "前項の予告の日数は、平均賃金を支払った日数だけ短縮することができる。",
    ]),
    ("article", "退職時の返還義務", [
        "従業員は、退職し、又は解雇されたときは、退職日までに、入館証、貸与されたパソコン及び携帯電話、名刺"
        "その他会社から貸与された物品を返還しなければならない。",
        "会社に対する債務があるときは、退職日までに精算しなければならない。",
    ]),
    ("chapter", "第10章　表彰及び懲戒"),
    ("article", "表彰", [
        ("従業員が次のいずれかに該当するときは、表彰することがある。", [
            "業務上有益な発明、考案又は改善を行い、会社の業績に貢献したとき",
            "永年にわたり誠実に勤務したとき（勤続10年及び20年）",
            "事故又は災害を未然に防止し、又は非常の際に特に功労があったとき",
        ]),
        "表彰は、賞状のほか、記念品又は賞金を授与して行う。",
    ]),
    ("article", "懲戒の種類", [
        ("会社は、従業員が{懲戒の事由}のいずれかに該当する場合は、その情状に応じ、次の区分により懲戒を行う。", [
            "譴責　始末書を提出させて将来を戒める。",
            "減給　始末書を提出させて減給する。ただし、減給は1回の額が平均賃金の1日分の5割を超えることはなく、"
            "また、総額が1賃金支払期における賃金総額の1割を超えることはない。",
            "出勤停止　始末書を提出させるほか、14日を限度として出勤を停止し、その間の賃金は支給しない。",
            "諭旨解雇　退職願を提出するよう勧告する。ただし、勧告に応じない場合は懲戒解雇とする。",
            "懲戒解雇　予告期間を設けることなく即時に解雇する。この場合において、所轄の労働基準監督署長の認定を"
            "受けたときは、解雇予告手当を支給しない。",
        ]),
    ]),
    ("article", "懲戒の事由", [
        ("従業員が次のいずれかに該当するときは、情状に応じ、譴責、減給又は出勤停止とする。", [
            "正当な理由なく無断欠勤が3日以上に及ぶとき",
            "正当な理由なくしばしば遅刻、早退し、又は欠勤したとき",
            "過失により会社に損害を与えたとき",
            "{遵守事項}に定める遵守事項に違反したとき",
            "{ハラスメントの禁止}の規定に違反したとき",
        ]),
        ("従業員が次のいずれかに該当するときは、懲戒解雇とする。ただし、平素の服務態度その他情状によっては、"
         "諭旨解雇又は出勤停止とすることがある。", [
             "正当な理由なく無断欠勤が14日以上に及び、出勤の督促に応じないとき",
             "故意又は重大な過失により会社に重大な損害を与えたとき",
             "業務に関して法令に違反する行為を行い、その事実が明らかとなったとき",
             "機密情報を漏えいし、会社に損害を与えたとき",
             "重大なハラスメント行為を行ったとき",
             "経歴を詐称して採用されたとき",
             "その他前各号に準ずる重大な行為があったとき",
         ]),
    ]),
    ("article", "懲戒の手続", [
        "会社は、懲戒を行う場合には、事前に本人に弁明の機会を与えるものとする。",
        "諭旨解雇及び懲戒解雇は、懲戒委員会の審議を経て決定する。",
    ]),
    ("supplement", "附則", [
        "この規則は、2024年4月1日から施行する。",
        "2015年4月1日から施行していた就業規則は、廃止する。",
    ]),
]

PDF_TITLE = "就業規則"
PDF_COMPANY = "株式会社サンプル商事"
RUNNING_HEADER = "株式会社サンプル商事　就業規則"
FORBIDDEN_IN_PDF = ["給料", "給与", "クビ"]

HANGING = set("、。，．）」』】〕")  # may hang into the right margin (ぶら下げ)
NO_LINE_START = set("・ー：；？！%々ぁぃぅぇぉっゃゅょァィゥェォッャュョ")  # pushed out with the char before
NO_LINE_END = set("（「『【〔")
# An ASCII number or word (with its punctuation) is never split across lines: "50,000円", "25%".
_TOKENS = re.compile(r"[0-9A-Za-z][0-9A-Za-z,.%:/\-]*|.", re.S)


def _resolve_refs(rules: list[tuple]) -> tuple[list[tuple], dict[str, int]]:
    """Number the articles and replace {見出し} with 第N条."""
    numbers: dict[str, int] = {}
    n = 0
    for entry in rules:
        if entry[0] == "article":
            n += 1
            if entry[1] in numbers:
                raise ValueError(f"duplicate article heading {entry[1]}")
            numbers[entry[1]] = n

    def sub(text: str) -> str:
        return re.sub(r"\{([^}]+)\}", lambda m: f"第{numbers[m.group(1)]}条", text)

    out: list[tuple] = []
    for entry in rules:
        if entry[0] == "chapter":
            out.append(entry)
            continue
        clauses = []
        for clause in entry[2]:
            if isinstance(clause, str):
                clauses.append(sub(clause))
            else:
                clauses.append((sub(clause[0]), [sub(item) for item in clause[1]]))
        out.append((entry[0], entry[1], clauses))
    return out, numbers


def build_pdf(path: Path) -> list[tuple[str, int, int]]:
    """Write work-rules.pdf; return [(article label, first page, last page)]."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    mincho, gothic = "HeiseiMin-W3", "HeiseiKakuGo-W5"
    for name in (mincho, gothic):
        if name not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(UnicodeCIDFont(name))

    page_w, page_h = A4
    left, right = 64.0, page_w - 64.0
    width = right - left
    body_top, body_bottom = page_h - 78.0, 64.0
    body_size, body_lead = 10.5, 17.5
    em = body_size  # width of one full-width character

    def sw(text: str, font: str, size: float) -> float:
        return pdfmetrics.stringWidth(text, font, size)

    def wrap(text: str, font: str, size: float, first: float, rest: float) -> list[str]:
        lines: list[str] = []
        cur = ""
        avail = first
        for tok in _TOKENS.findall(text):
            if not cur or sw(cur + tok, font, size) <= avail:
                cur += tok
            elif tok[0] in HANGING:
                cur += tok
            else:
                carry = ""
                if tok[0] in NO_LINE_START:
                    carry, cur = cur[-1], cur[:-1]
                while cur and cur[-1] in NO_LINE_END:
                    carry, cur = cur[-1] + carry, cur[:-1]
                lines.append(cur)
                cur = carry + tok
                avail = rest
        if cur:
            lines.append(cur)
        # No one-character last line: besides looking poor, PDFium drops a text object that holds a single
        # full-width character from the text layer (e.g. a lone 「き」 line would vanish on extraction).
        while len(lines) > 1 and (len(lines[-1]) < 2 or lines[-1][0] in HANGING | NO_LINE_START):
            lines[-2], lines[-1] = lines[-2][:-1], lines[-2][-1] + lines[-1]
        return lines

    # Flow: blocks of lines (x, text, font, size, leading); a block may ask to keep `keep` following lines
    # on the same page (headings never end a page).
    rules, numbers = _resolve_refs(RULES)
    blocks: list[dict] = []

    def para(text: str, x_first: float, x_rest: float, font: str = mincho, size: float = body_size,
             lead: float = body_lead) -> list[tuple]:
        lines = wrap(text, font, size, right - x_first, right - x_rest)
        return [(x_first if i == 0 else x_rest, line, font, size, lead) for i, line in enumerate(lines)]

    for entry in rules:
        if entry[0] == "chapter":
            blocks.append({"lines": [(left, entry[1], gothic, 13.0, 22.0)], "space": 12.0, "keep": 3,
                           "label": None, "kind": "chapter"})
            continue
        kind, heading, clauses = entry
        if kind == "article":
            label = f"第{numbers[heading]}条（{heading}）"
        else:
            label = heading
        blocks.append({"lines": [(left, label, gothic, 11.0, 19.0)], "space": 6.0, "keep": 2, "label": label,
                       "kind": "heading"})
        for ci, clause in enumerate(clauses):
            text, items = (clause, []) if isinstance(clause, str) else clause
            if ci == 0:
                lines = para(text, left + em, left)
            else:
                mark = f"{ci + 1}　"
                lines = para(mark + text, left, left + em)
            for ii, item in enumerate(items):
                mark = f"（{ii + 1}）"
                lines += para(mark + item, left + em, left + em + sw(mark, mincho, body_size))
            blocks.append({"lines": lines, "space": 0.0, "keep": 0, "label": None, "kind": "body"})

    c = canvas.Canvas(str(path), pagesize=A4, invariant=1, pageCompression=1)
    c.setTitle(f"{PDF_COMPANY} {PDF_TITLE}")
    c.setAuthor(PDF_COMPANY)
    c.setSubject("就業規則（2024年4月1日施行）")
    c.setCreator("kotae samples/make_samples.py")

    page = 1
    spans: list[list] = []  # [label, first page, last page]
    drawn: dict[int, list[str]] = {}  # page -> every string drawn on it, for the text-layer check

    # The running header is drawn first and the page number last on every page, so the text layer
    # reads: header line, body, "- N -" (as in most word-processor output).
    def header() -> None:
        c.setFont(gothic, 8.5)
        c.setFillGray(0.35)
        c.drawString(left, page_h - 42.0, RUNNING_HEADER)
        drawn.setdefault(page, []).append(RUNNING_HEADER)
        c.setStrokeGray(0.6)
        c.setLineWidth(0.5)
        c.line(left, page_h - 48.0, right, page_h - 48.0)
        c.setFillGray(0.0)

    def footer(number: int) -> None:
        c.setFont(mincho, 9.0)
        c.setFillGray(0.35)
        c.drawCentredString(page_w / 2, 34.0, f"- {number} -")
        drawn.setdefault(number, []).append(f"- {number} -")
        c.setFillGray(0.0)

    header()
    # Title block on page 1.
    y = body_top - 10.0
    c.setFont(gothic, 20.0)
    c.drawCentredString(page_w / 2, y, PDF_TITLE)
    y -= 26.0
    c.setFont(mincho, 11.0)
    c.drawCentredString(page_w / 2, y, PDF_COMPANY)
    drawn[1] += [PDF_TITLE, PDF_COMPANY]
    y -= 30.0

    def new_page() -> None:
        nonlocal page, y
        footer(page)
        c.showPage()
        page += 1
        header()
        y = body_top

    for bi, block in enumerate(blocks):
        lines = block["lines"]
        needed = block["space"] + sum(line[4] for line in lines)
        if block["keep"]:
            follow = [ln for nb in blocks[bi + 1:bi + 3] for ln in nb["lines"]][: block["keep"]]
            needed += sum(line[4] for line in follow)
            if y - needed < body_bottom:
                new_page()
        if y < body_top:
            y -= block["space"]
        if block["label"]:
            spans.append([block["label"], page, page])
        for x, text, font, size, lead in lines:
            if y - lead < body_bottom:
                new_page()
            y -= lead
            c.setFont(font, size)
            c.drawString(x, y + (lead - size) / 2.0, text)
            drawn[page].append(text)
        if spans and block["kind"] != "chapter":
            spans[-1][2] = page
    footer(page)
    c.showPage()
    c.save()

    for word in FORBIDDEN_IN_PDF:
        if any(word in text for texts in drawn.values() for text in texts):
            raise SystemExit(f"forbidden word {word!r} in the PDF text")
    _verify_text_layer(path, drawn)
    return [(label, first, last) for label, first, last in spans]


def _verify_text_layer(path: Path, drawn: dict[int, list[str]]) -> None:
    """The text PDFium extracts from each page must be exactly what was drawn there (whitespace aside)."""
    try:
        import pypdfium2 as pdfium
    except ImportError:  # pragma: no cover - pypdfium2 is a kotae dependency
        print("warning: pypdfium2 not installed; PDF text layer not verified", file=sys.stderr)
        return
    pdf = pdfium.PdfDocument(str(path))
    try:
        if len(pdf) != len(drawn):
            raise SystemExit(f"{path.name}: {len(pdf)} pages, expected {len(drawn)}")
        for index in range(len(pdf)):
            got = re.sub(r"\s+", "", pdf[index].get_textpage().get_text_range())
            want = re.sub(r"\s+", "", "".join(drawn[index + 1]))
            if got != want:
                raise SystemExit(f"{path.name} page {index + 1}: extracted text differs from the drawn text")
    finally:
        pdf.close()


# ---------------------------------------------------------------------------------------------
# 2. faq.md — 社内FAQ
# ---------------------------------------------------------------------------------------------
# No fact of the work rules is restated here (no competing evidence); the FAQ only points to them.

FAQ_MD = """\
# 社内FAQ（よくある質問）

株式会社サンプル商事の総務部・情報システム部・経理部に寄せられることの多い質問と回答をまとめました。
労働時間、休暇、賃金、手当など就業規則に定めのある事項については、この FAQ ではなく就業規則を参照してください。

最終更新: 2024年10月1日（総務部）

## IT・PC

### Q. 社内Wi-Fiに接続するには？
A. 従業員用のSSIDは「SAMPLE-STAFF」です。初回接続時は、従業員番号とPCのパスワードで認証してください。
来客用には「SAMPLE-GUEST」を用意しており、その接続キーは1階受付で毎朝更新しています。

### Q. パスワードはどのくらいの頻度で変更する必要がありますか？
A. PCと社内システムのパスワードは90日ごとに変更が必要です。期限の7日前から画面に通知が表示されます。
新しいパスワードは12文字以上とし、英大文字・英小文字・数字・記号のうち3種類以上を含めてください。直近5回分と同じものは使えません。

### Q. PCが故障した、または動作がおかしいときは？
A. 情報システム部ヘルプデスク（内線2100、helpdesk@sample-shoji.example）へ連絡してください。
受付時間は平日8時30分から17時30分までです。修理に時間がかかる場合は、代替機を当日中に貸し出します。

### Q. 私物のUSBメモリを使ってもよいですか？
A. 私物のUSBメモリや外付けディスクは、会社のPCに接続できない設定になっています。
データの受け渡しが必要な場合は、情報システム部が暗号化USBメモリを最長2週間貸し出します。

### Q. 社外から社内システムやメールを使うには？
A. VPN「SAMPLE-VPN」に接続し、認証アプリ「SampleAuth」に表示されるワンタイムパスワードを入力してください。
VPNの利用申請はヘルプデスクで受け付けています。在宅勤務の申請手続や回数については、就業規則を参照してください。

### Q. 業務で使うソフトウェアをインストールしたいときは？
A. 社内ポータルの「ソフトウェア申請フォーム」から申請してください。情報システム部の審査を経て、通常3営業日以内に結果を連絡します。
承認されていないソフトウェアのインストールは禁止されています。

### Q. 不審なメールを受け取ったら？
A. リンクや添付ファイルを開かずに、メールソフトの「不審メール報告」ボタンで報告してください。
ボタンが使えない場合は、security@sample-shoji.example へ転送してください。誤って開いてしまった場合は、直ちにLANケーブルを抜き、Wi-Fiをオフにしてヘルプデスクへ連絡してください。

## 経費精算

### Q. 経費精算の締切はいつですか？
A. 前月分の経費は、毎月5日までに経費精算システム「ケイヒノート」で申請してください。
5日が土日祝日の場合は、翌営業日が締切になります。締切を過ぎた申請は、翌月の処理に回ります。

### Q. 出張の手配はどうすればよいですか？
A. 新幹線・航空券・ホテルは、出張手配システム「トラベルナビ」から予約してください。会社への請求書払いになるため、立替えは不要です。
予約は出発の7日前までに行い、所属長の承認を受けてください。

### Q. 領収書をなくしてしまいました。
A. 「支払証明書（様式K-3）」に支払日・支払先・金額・目的を記入し、上長の承認印を得てから、ケイヒノートに添付してください。
支払証明書による精算は、1件あたり10,000円までです。

### Q. 電子で受け取った領収書はどう扱えばよいですか？
A. PDFなどの電子データのまま、ケイヒノートにアップロードしてください。印刷した紙を提出する必要はありません。
電子データは会社のシステムで7年間保存されるため、個人で保管する必要はありません。

### Q. どの経費コードを使えばよいかわかりません。
A. 経費コード表（expense-codes.csv）で、内容に合うコードを選んでください。上限額や承認者もコード表に記載しています。
判断に迷う場合は、経理部（内線2300）に問い合わせてください。

### Q. 法人カードを持つことはできますか？
A. 出張や取引先対応の多い従業員は、所属長の推薦により経理部へ法人カードを申請できます。
カードの利用明細は、翌月10日までにケイヒノートで用途を登録してください。

## 福利厚生

### Q. 社員食堂の営業時間を教えてください。
A. 社員食堂は本社8階にあり、営業時間は平日の11時30分から14時までです（土日祝日は休業）。
日替わり定食は会社補助後の価格で1食400円です。支払いは従業員証のタッチで行い、代金は毎月まとめて精算されます。

### Q. 福利厚生サービス「サンプルライフ」とは？
A. 提携先の宿泊施設、スポーツ施設、育児・介護サービスなどを割引価格で利用できる外部サービスです。
毎年4月1日に1人30,000ポイント（1ポイント＝1円）が付与され、翌年3月末に失効します。

### Q. 資格取得の支援制度はありますか？
A. 会社が指定する資格については、受験料を全額補助します（同一資格につき2回まで）。
合格した場合は、資格の区分に応じて10,000円から100,000円の報奨金が支給されます。対象資格の一覧は人事部のポータルにあります。

### Q. 産業医に相談したいときは？
A. 産業医の健康相談は、毎月第2・第4水曜日の午後に本社5階の相談室で行っています。
予約は人事部（内線2200）で受け付けており、相談内容が本人の同意なく上司に伝わることはありません。

### Q. 結婚や出産のお祝い金はありますか？
A. 共済会から、結婚祝金30,000円、出産祝金20,000円が支給されます。
事由が発生した日から3か月以内に、共済会の申請書を人事部へ提出してください。休暇の日数については就業規則を参照してください。

## オフィス

### Q. 入館証を忘れたときは？
A. 1階受付で本人確認のうえ、当日限り有効の一時入館証を受け取ってください。一時入館証は退館時に受付へ返却します。
入館証を紛失した場合の再発行手数料は1,000円です。

### Q. 会議室を予約するには？
A. 会議室予約システム「ルームナビ」から予約してください。1回の予約は最大2時間まで、予約できるのは2週間先までです。
開始時刻から15分を過ぎても利用がない予約は、自動的に取り消されます。

### Q. 複合機で印刷するには？
A. 印刷データを送信したあと、複合機に従業員証をかざすと印刷が始まります（オンデマンド印刷）。
カラー印刷をするときは部署コードの入力が必要です。印刷データは24時間で自動的に削除されます。

### Q. 忘れ物や落とし物はどこに届ければよいですか？
A. 総務部（本社3階）に届けてください。届けられた物品は1か月間保管し、その後処分します。
貴重品は、当日中に最寄りの警察署へ届け出ます。

### Q. 社内便や宅配便の集荷は何時ですか？
A. 社内便は1日2回、10時と15時に各フロアのメールコーナーを回収します。
私物の宅配便を会社で受け取ることはできません。

### Q. 災害時の避難場所はどこですか？
A. 本社の一次避難場所は「さくら中央公園」です。各フロアの非常口の位置は、フロア案内図で確認してください。
本社には従業員3日分の飲料水と非常食を備蓄しています。防災訓練は毎年9月と3月に行います。

## 人事・手続き

### Q. 引っ越しや結婚で住所・氏名が変わったときは？
A. 人事システム「HRポータル」の「届出事項変更」から、変更後14日以内に申請してください。
住所の変更に伴って通勤経路が変わる場合は、あわせて通勤経路の変更も申請してください。

### Q. 在籍証明書を発行してもらえますか？
A. HRポータルの「証明書発行申請」から申請してください。申請から3営業日以内に、PDFでお送りします。
押印した紙の証明書が必要な場合は、申請時にその旨を記入してください。

### Q. 名刺を作りたいときは？
A. HRポータルの「名刺発注」から申請してください。発注から5営業日ほどで、1箱100枚が所属部署に届きます。
役職や所属が変わったときは、異動の発令日以降に新しい名刺を発注してください。

### Q. 休暇の申請はどこから行いますか？
A. 年次有給休暇や特別休暇の申請は、HRポータルの「休暇申請」から行い、所属長の承認を受けてください。
休暇の日数や申請の期限については就業規則を参照してください。
"""


# ---------------------------------------------------------------------------------------------
# 3. employee-handbook.docx — English handbook (a different fictional company: Aozora Labs K.K.)
# ---------------------------------------------------------------------------------------------
# ("h1"|"h2"|"p"|"bullet", text) | ("table", header, rows) | ("pagebreak",)

HANDBOOK: list[tuple] = [
    ("title", "Aozora Labs K.K. Employee Handbook"),
    ("p", "Version 3.2, effective 1 April 2024. Owner: People Team."),
    ("h1", "Welcome"),
    ("p", "Welcome to Aozora Labs K.K. We build data tools for logistics companies and have about 180 "
          "employees in our Tokyo (Nihonbashi) and Fukuoka offices. This handbook explains how we work "
          "together and what you can expect from the company."),
    ("p", "This handbook applies to all permanent and fixed-term employees. Contractors are covered by their "
          "own agreements. If anything in this handbook conflicts with your employment contract, the contract "
          "takes precedence."),
    ("p", "The People Team reviews this handbook every April. Send questions to people@aozoralabs.example or "
          "post them in the #ask-people Slack channel."),
    ("h2", "Our values"),
    ("p", "Our four values are Curiosity, Candor, Craft and Care. They guide how we hire, how we give feedback "
          "and how we make decisions when the rules do not give an answer."),
    ("h1", "Code of Conduct"),
    ("p", "We expect everyone to treat colleagues, customers and partners with respect. Harassment, bullying "
          "and discrimination of any kind are not tolerated and may lead to dismissal."),
    ("h2", "Gifts and hospitality"),
    ("p", "You may accept gifts from business partners worth up to JPY 10,000. Any gift above that value must "
          "be declared to the Compliance team within 5 business days using the Gift Register form."),
    ("h2", "Outside work"),
    ("p", "If you want to take on paid work outside Aozora Labs, tell your manager and get written approval "
          "from the People Team before you start. Outside work must not compete with our business or use "
          "company equipment."),
    ("h2", "Speaking up"),
    ("p", "Raise concerns with your manager or the People Team. You can also report anonymously through the "
          "EthicsLine hotline on 0120-000-123, which is available 24 hours a day. We do not tolerate "
          "retaliation against anyone who speaks up in good faith."),
    ("h1", "Working Hours"),
    ("p", "Standard working time is 8 hours a day and 40 hours a week, Monday to Friday."),
    ("p", "We use flextime with core hours from 11:00 to 15:00. Outside the core hours you may start as early "
          "as 07:00 and end your day as late as 22:00, as long as your team knows when you are available."),
    ("p", "Take a break of at least 45 minutes when you work more than 6 hours. You can take it at any time "
          "between 11:00 and 14:30."),
    ("p", "Overtime must be approved in advance by your manager in the Kintai app. Record your hours every "
          "day; the monthly timesheet closes at 12:00 on the second business day of the following month."),
    ("h1", "Remote Work"),
    ("p", "Aozora Labs is a hybrid company. You may work remotely up to 3 days a week. Tuesday and Thursday "
          "are anchor days, when everyone based in Tokyo works from the office."),
    ("p", "New employees receive a one-time home office allowance of JPY 40,000 for a chair, desk or monitor. "
          "Claim it within 90 days of your start date. A monthly internet allowance of JPY 5,000 is added to "
          "your pay automatically."),
    ("p", "You may work from another country for up to 20 working days per calendar year. Ask your manager "
          "and the People Team for approval at least 4 weeks before you travel."),
    ("p", "When working remotely, stay reachable on Slack during core hours and connect through the company "
          "VPN (Tailscale) before you open internal systems."),
    ("pagebreak",),
    ("h1", "Leave"),
    ("p", "The leave year runs from 1 April to 31 March. Request all leave in BambooHR; your manager approves "
          "it there. The table below lists the main leave types."),
    ("table", ["Leave type", "Days per year", "Notice required"], [
        ["Annual leave", "20", "2 weeks for 3 or more consecutive days, otherwise 2 business days"],
        ["Sick leave", "10 (paid)", "Tell your manager before 10:00 on the day"],
        ["Family care leave", "5", "1 business day"],
        ["Bereavement leave", "5", "As soon as possible"],
        ["Volunteer leave", "2", "2 weeks"],
        ["Study leave", "3", "4 weeks"],
    ]),
    ("p", "New employees receive annual leave pro-rated by the month in which they join. Up to 5 unused days "
          "of annual leave can be carried over into the next leave year; carried-over days expire on 30 June."),
    ("h2", "Sick leave"),
    ("p", "If you are ill for more than 3 consecutive days, send a doctor's note to the People Team. Sick "
          "leave cannot be carried over."),
    ("h2", "Parental leave"),
    ("p", "Parents of any gender can take parental leave until their child turns one, or until the child "
          "turns two if no daycare place is available. Tell the People Team at least 1 month before the "
          "leave starts."),
    ("p", "During the first 8 weeks of parental leave, Aozora Labs tops up the government childcare leave "
          "benefit to 80% of your base salary."),
    ("h1", "Travel and Expenses"),
    ("p", "Book all business travel through Navan: flights at least 14 days before departure and hotels at "
          "least 7 days before check-in."),
    ("p", "Fly economy class on flights shorter than 6 hours. Premium economy is allowed on flights of 6 hours "
          "or longer."),
    ("p", "The overseas per diem is JPY 6,000 per day for meals and incidentals. No receipts are needed for "
          "the per diem."),
    ("p", "Submit expense claims in Expensify with a photo of every receipt, and choose the matching code "
          "from the company expense code table. Your line manager approves the claim; some codes need an "
          "additional approver, as listed in the table. Approved claims are reimbursed to your bank account "
          "within 10 business days."),
    ("p", "Employees who travel more than 4 times a year can request a corporate Visa card with a monthly "
          "limit of JPY 300,000."),
    ("pagebreak",),
    ("h1", "IT Security"),
    ("p", "Your laptop is managed by the IT team: a MacBook Air for most roles and a ThinkPad X1 Carbon for "
          "some engineering roles. Laptops are replaced every 3 years."),
    ("p", "Multi-factor authentication with Okta Verify is mandatory for all company accounts. Passwords must "
          "be at least 14 characters long and stored in 1Password."),
    ("p", "Screens lock automatically after 5 minutes of inactivity. Never leave your laptop unattended in a "
          "public place."),
    ("p", "Report phishing emails with the Report Phish button in Gmail. Report a lost or stolen device to "
          "it-help@aozoralabs.example within 1 hour, even outside business hours."),
    ("p", "USB storage devices are blocked on company laptops. Share files through Google Drive; sharing "
          "company files with personal email addresses is not allowed."),
    ("p", "Software can be installed only from the Self Service catalogue. Ask for anything else in the "
          "#it-help Slack channel."),
    ("h1", "Benefits"),
    ("p", "All employees are enrolled in the company health insurance scheme from their first day. The "
          "annual health check is free and takes place at a partner clinic in Nihonbashi."),
    ("p", "Every employee has a learning budget of JPY 120,000 per fiscal year for courses, conferences and "
          "books. Unused budget does not roll over."),
    ("p", "Japanese or English language lessons are reimbursed up to JPY 10,000 per month."),
    ("p", "If you refer a candidate who is hired, you receive a referral bonus of JPY 300,000 once they pass "
          "their 3-month probation."),
    ("p", "The Employee Assistance Programme (EAP) offers free and confidential counselling, up to 6 sessions "
          "per year, by phone or video."),
    ("h1", "Performance Reviews"),
    ("p", "Reviews happen twice a year: a mid-year check-in in October and an annual review in April."),
    ("p", "Each review in Lattice combines a self-review, feedback from 2 to 4 peers and your manager's "
          "assessment."),
    ("p", "Ratings use a 5-point scale from 1 (Below expectations) to 5 (Exceptional). Promotions are decided "
          "in calibration meetings after the annual review."),
    ("p", "Salary changes that result from the annual review take effect on 1 July."),
    ("h1", "Leaving the Company"),
    ("p", "To resign, write to your manager and the People Team. The notice period is 1 month for most "
          "employees and 2 months for people managers."),
    ("p", "Return your laptop, security badge and any other equipment on or before your last day. Remote "
          "employees receive a prepaid return box and must ship their equipment within 5 business days."),
    ("p", "Access to company systems ends at 18:00 on your last working day. The People Team holds an exit "
          "interview during your final week; what you say there is kept confidential."),
    ("p", "Please use your remaining annual leave before your last day. Unused annual leave is not paid out."),
]

FIXED_TIME = dt.datetime(2024, 4, 1, 9, 0, 0)
ZIP_TIME = (2024, 4, 1, 9, 0, 0)


def _normalize_zip(data: bytes) -> bytes:
    """Rewrite a .docx (zip) with fixed member timestamps so the bytes are reproducible."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            zi = zipfile.ZipInfo(info.filename, date_time=ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            dst.writestr(zi, src.read(info.filename))
    return out.getvalue()


def build_docx(path: Path) -> None:
    import docx
    from docx.shared import Pt

    doc = docx.Document()
    props = doc.core_properties
    props.title = "Aozora Labs K.K. Employee Handbook"
    props.author = "Aozora Labs People Team"
    props.last_modified_by = "Aozora Labs People Team"
    props.created = FIXED_TIME
    props.modified = FIXED_TIME
    props.revision = 1
    doc.styles["Normal"].font.size = Pt(11)

    for entry in HANDBOOK:
        kind = entry[0]
        if kind == "title":
            doc.add_heading(entry[1], level=0)
        elif kind == "h1":
            doc.add_heading(entry[1], level=1)
        elif kind == "h2":
            doc.add_heading(entry[1], level=2)
        elif kind == "p":
            doc.add_paragraph(entry[1])
        elif kind == "pagebreak":
            doc.add_page_break()
        elif kind == "table":
            header, rows = entry[1], entry[2]
            table = doc.add_table(rows=1, cols=len(header))
            table.style = "Table Grid"
            for cell, text in zip(table.rows[0].cells, header):
                cell.text = text
                for run in cell.paragraphs[0].runs:
                    run.bold = True
            for row in rows:
                cells = table.add_row().cells
                for cell, text in zip(cells, row):
                    cell.text = text
        else:
            raise ValueError(kind)

    buf = io.BytesIO()
    doc.save(buf)
    path.write_bytes(_normalize_zip(buf.getvalue()))


# ---------------------------------------------------------------------------------------------
# 4. expense-codes.csv
# ---------------------------------------------------------------------------------------------

EXPENSE_HEADER = ["code", "category", "description", "limit_jpy", "approval"]
EXPENSE_ROWS = [
    ["EX-101", "交通費", "電車・バス等の公共交通機関の運賃（業務上の移動。通勤にかかる費用は対象外）", "", "上長"],
    ["EX-102", "タクシー代", "深夜（22時以降）の移動や重い荷物の運搬など、やむを得ない場合のタクシー利用", "10000",
     "上長"],
    ["EX-103", "Airfare", "Domestic and international flights, economy class unless approved otherwise", "",
     "Department head"],
    ["EX-104", "新幹線・特急", "新幹線・特急列車の運賃及び料金（普通車指定席）", "", "上長"],
    ["EX-105", "Rental car", "Rental car for business trips, including fuel and expressway tolls",
     "15000 per day", "Department head"],
    ["EX-106", "Ferry and bus charter", "Ferries and chartered buses for site visits or events", "",
     "Department head"],
    ["EX-201", "会議費", "社内外の打合せで提供する飲料・軽食", "1500/人", "上長"],
    ["EX-202", "Team meal", "Team lunches or dinners for project milestones", "3000 per person",
     "Department head"],
    ["EX-203", "社内懇親会費", "部署単位の懇親会（年2回まで）", "4000/人", "部長"],
    ["EX-205", "Client entertainment", "Meals and drinks with clients or business partners",
     "5000 per person", "Department head"],
    ["EX-206", "接待交際費（ゴルフ等）", "取引先とのゴルフ等の接待（事前申請が必要）", "30000/人", "役員"],
    ["EX-207", "贈答品", "取引先への贈答品・手土産", "5000", "部長"],
    ["EX-208", "慶弔費（取引先）", "取引先への祝儀・香典・供花", "10000", "部長"],
    ["EX-301", "宿泊費", "国内出張時の宿泊費（1泊あたり）", "12000", "上長"],
    ["EX-302", "Hotel (overseas)", "Overseas hotel, per night", "25000", "Department head"],
    ["EX-303", "Visa and passport fees", "Visa applications and passport renewals needed for business travel",
     "", "Department head"],
    ["EX-304", "Travel insurance", "Overseas travel insurance not covered by the corporate policy", "5000",
     "Manager"],
    ["EX-401", "通信費", "業務用携帯電話・モバイルルーターの通信料", "", "情報システム部"],
    ["EX-402", "Software subscription", "SaaS and software licences for team use", "", "IT department"],
    ["EX-403", "PC周辺機器", "マウス・キーボード・ケーブル等の周辺機器", "10000", "上長"],
    ["EX-404", "Cloud services", "Cloud computing and storage charges (AWS, Google Cloud)", "", "IT department"],
    ["EX-405", "ドメイン・証明書", "ドメイン登録料・SSL証明書の更新費用", "", "情報システム部"],
    ["EX-501", "書籍・資料費", "業務に必要な書籍・雑誌・有料記事", "5000", "上長"],
    ["EX-502", "Conference fees", "Registration fees for conferences and seminars", "50000",
     "Department head"],
    ["EX-503", "研修費", "社外研修・eラーニングの受講料", "", "人事部"],
    ["EX-504", "資格試験受験料", "会社指定資格の受験料（資格取得支援制度の対象）", "", "人事部"],
    ["EX-505", "Professional membership", "Annual fees for professional bodies and academic societies",
     "30000", "Department head"],
    ["EX-601", "事務用品費", "文房具・コピー用紙・ファイル等", "3000", "上長"],
    ["EX-602", "Postage and courier", "Postage, courier and express delivery for business documents", "",
     "Manager"],
    ["EX-603", "印刷製本費", "パンフレット・資料の外部印刷及び製本", "", "部長"],
    ["EX-604", "Office furniture", "Furniture for company offices (not for home)", "", "General Affairs"],
    ["EX-605", "消耗品費", "単価10万円未満の備品・消耗品", "100000", "部長"],
    ["EX-701", "広告宣伝費", "広告掲載・展示会出展・販促物の制作", "", "部長"],
    ["EX-702", "Samples and demo units", "Product samples and demo units given to prospects", "", "Director"],
    ["EX-703", "Recruiting events", "Booth fees and materials for hiring events", "", "HR department"],
    ["EX-801", "支払手数料", "振込手数料・各種証明書の発行手数料", "", "経理部"],
    ["EX-802", "Legal and notary fees", "Notary, registration and similar legal fees", "", "Legal department"],
    ["EX-803", "租税公課", "収入印紙・登録免許税等", "", "経理部"],
    ["EX-901", "雑費", "他のコードに該当しない少額の費用", "3000", "上長"],
    ["EX-902", "Miscellaneous (overseas)", "Small overseas costs not covered by any other code", "5000",
     "Manager"],
]


def build_csv(path: Path) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(EXPENSE_HEADER)
    writer.writerows(EXPENSE_ROWS)
    path.write_text(buf.getvalue(), encoding="utf-8", newline="")


def main() -> int:
    DOCS.mkdir(exist_ok=True)
    spans = build_pdf(DOCS / "work-rules.pdf")
    (DOCS / "faq.md").write_text(FAQ_MD, encoding="utf-8", newline="\n")
    build_docx(DOCS / "employee-handbook.docx")
    build_csv(DOCS / "expense-codes.csv")
    print("wrote work-rules.pdf, faq.md, employee-handbook.docx, expense-codes.csv")
    print(f"work-rules.pdf: {max(last for _, _, last in spans)} pages, "
          f"{sum(1 for label, *_ in spans if label.startswith('第'))} articles")
    for label, first, last in spans:
        where = f"p.{first}" if first == last else f"p.{first}-{last}"
        print(f"  {where:8} {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
